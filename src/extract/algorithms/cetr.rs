//! CETR (seed 003): content extraction via tag ratios.
//!
//! * [`select_2d`] — CETR proper (sections 5.1–5.2): the points `(T'_i, Ĝ_i)` — smoothed tag
//!   ratio and absolute smoothed derivative (α = 3) of the smoothed tag ratio — clustered by
//!   k-means with k = 3 and one centroid pinned at the origin; lines outside the origin's
//!   cluster are content.
//! * [`select_threshold`] — CETR-TM (section 4.2): lines with `T'_i ≥ λσ`, λ = 1.
//! * [`select_kmeans_1d`] — CETR-KM (section 4.3): 1-D k-means (k = 3) on `T'`; the cluster
//!   whose centroid is nearest zero is not content.
//!
//! Section 5.3's fallbacks: a page without tags is all content; a one-line page is re-broken
//! (see [`crate::extract::tag_ratio`]). The centroids start deterministically (the point farthest from
//! the origin and the points' mean), so results are reproducible.
//!
//! σ of the Gaussian kernel is not fixed by the paper (it ties the kernel to the variance of
//! the histogram without a formula); values tried on the bench (F1 of `cetr`):
//! σ = 0.5: 0.762, σ = 1: 0.757, σ = 2: 0.768, σ = 3: 0.764, σ = 5: 0.761, σ = 8: 0.751.
//! Chosen: [`SIGMA`] = 2. The kernel's radius is ⌈σ⌉ as in Equation 1.

use crate::extract::tag_ratio::{self, Line};

/// σ of the Gaussian kernel (measured, see the module documentation).
pub const SIGMA: f64 = 2.0;

/// α of the moving-average derivative (the paper's value).
pub const ALPHA: usize = 3;

/// λ of CETR-TM (the paper's value).
pub const LAMBDA: f64 = 1.0;

/// k of the clusterings (the paper's value).
pub const K: usize = 3;

const MAX_ITERATIONS: usize = 100;

/// The lines of a page and which of them are content.
#[derive(Debug, Clone, Default)]
pub struct LineSelection {
    pub lines: Vec<Line>,
    pub content: Vec<bool>,
}

impl LineSelection {
    /// The content as text blocks: consecutive content lines form one block.
    pub fn blocks(&self) -> Vec<String> {
        let mut blocks = Vec::new();
        let mut current: Vec<String> = Vec::new();
        for (line, &content) in self.lines.iter().zip(&self.content) {
            if content {
                let text = line.text();
                if !text.is_empty() {
                    current.push(text);
                }
            } else if !current.is_empty() {
                blocks.push(current.join(" "));
                current.clear();
            }
        }
        if !current.is_empty() {
            blocks.push(current.join(" "));
        }
        blocks
    }
}

/// Smoothed tag ratios `T'` of the page's lines.
fn smoothed(lines: &[Line], sigma: f64) -> Vec<f64> {
    tag_ratio::smooth(
        &tag_ratio::tag_ratios(lines),
        &tag_ratio::gaussian_kernel(sigma),
    )
}

/// Lines of a page with no tags at all are all content (section 5.3).
fn tagless(lines: Vec<Line>) -> Result<LineSelection, Vec<Line>> {
    if lines.iter().all(|l| l.tags == 0) {
        let content = vec![true; lines.len()];
        Ok(LineSelection { lines, content })
    } else {
        Err(lines)
    }
}

/// CETR with 2-D clustering.
pub fn select_2d(source: &str, sigma: f64) -> LineSelection {
    crate::stages::measure(crate::stages::Stage::Cetr, || {
        let lines = match tagless(tag_ratio::page_lines(source)) {
            Ok(selection) => return selection,
            Err(lines) => lines,
        };
        let kernel = tag_ratio::gaussian_kernel(sigma);
        let t = tag_ratio::smooth(&tag_ratio::tag_ratios(&lines), &kernel);
        let g = tag_ratio::smooth(&tag_ratio::derivative(&t, ALPHA), &kernel);
        let points: Vec<[f64; 2]> = t.iter().zip(&g).map(|(&t, &g)| [t, g.abs()]).collect();
        let labels = kmeans_pinned(&points);
        let content = labels.into_iter().map(|label| label != 0).collect();
        LineSelection { lines, content }
    })
}

/// CETR-TM: lines whose smoothed tag ratio reaches λσ.
pub fn select_threshold(source: &str, sigma: f64) -> LineSelection {
    let lines = match tagless(tag_ratio::page_lines(source)) {
        Ok(selection) => return selection,
        Err(lines) => lines,
    };
    let t = smoothed(&lines, sigma);
    let (_, std) = tag_ratio::mean_std(&t);
    let tau = LAMBDA * std;
    let content = t.iter().map(|&v| v >= tau && v > 0.0).collect();
    LineSelection { lines, content }
}

/// CETR-KM: 1-D k-means on the smoothed tag ratios.
pub fn select_kmeans_1d(source: &str, sigma: f64) -> LineSelection {
    let lines = match tagless(tag_ratio::page_lines(source)) {
        Ok(selection) => return selection,
        Err(lines) => lines,
    };
    let t = smoothed(&lines, sigma);
    let max = t.iter().copied().fold(0.0, f64::max);
    let mut centroids = [0.0, max / 2.0, max];
    let mut labels = vec![0usize; t.len()];
    for _ in 0..MAX_ITERATIONS {
        let mut changed = false;
        for (label, &v) in labels.iter_mut().zip(&t) {
            let nearest = nearest(centroids.iter().map(|c| (c - v).abs()));
            changed |= *label != nearest;
            *label = nearest;
        }
        for (k, centroid) in centroids.iter_mut().enumerate() {
            let members: Vec<f64> = t
                .iter()
                .zip(&labels)
                .filter(|(_, l)| **l == k)
                .map(|(v, _)| *v)
                .collect();
            if !members.is_empty() {
                *centroid = members.iter().sum::<f64>() / members.len() as f64;
            }
        }
        if !changed {
            break;
        }
    }
    let origin_cluster = nearest(centroids.iter().map(|c| c.abs()));
    let content = labels.into_iter().map(|l| l != origin_cluster).collect();
    LineSelection { lines, content }
}

/// k-means with k = 3 where cluster 0's centroid stays at the origin (section 5.2).
fn kmeans_pinned(points: &[[f64; 2]]) -> Vec<usize> {
    if points.is_empty() {
        return Vec::new();
    }
    let norm = |p: &[f64; 2]| (p[0] * p[0] + p[1] * p[1]).sqrt();
    let farthest = points
        .iter()
        .copied()
        .max_by(|a, b| norm(a).total_cmp(&norm(b)))
        .unwrap_or([0.0, 0.0]);
    let n = points.len() as f64;
    let mean = points
        .iter()
        .fold([0.0, 0.0], |acc, p| [acc[0] + p[0] / n, acc[1] + p[1] / n]);
    let mut centroids = [[0.0, 0.0], farthest, mean];
    let mut labels = vec![usize::MAX; points.len()];
    for _ in 0..MAX_ITERATIONS {
        let mut changed = false;
        for (label, p) in labels.iter_mut().zip(points) {
            let nearest = nearest(
                centroids
                    .iter()
                    .map(|c| (c[0] - p[0]).powi(2) + (c[1] - p[1]).powi(2)),
            );
            changed |= *label != nearest;
            *label = nearest;
        }
        for (k, centroid) in centroids.iter_mut().enumerate().skip(1) {
            let mut sum = [0.0, 0.0];
            let mut count = 0usize;
            for (p, &l) in points.iter().zip(&labels) {
                if l == k {
                    sum = [sum[0] + p[0], sum[1] + p[1]];
                    count += 1;
                }
            }
            if count > 0 {
                *centroid = [sum[0] / count as f64, sum[1] / count as f64];
            }
        }
        if !changed {
            break;
        }
    }
    labels
}

/// The index of the smallest distance (the first on ties).
fn nearest(distances: impl Iterator<Item = f64>) -> usize {
    let mut best = (0usize, f64::INFINITY);
    for (i, d) in distances.enumerate() {
        if d < best.1 {
            best = (i, d);
        }
    }
    best.0
}
