//! The near-duplicate evaluation behind `gleaner eval --duplicates`: a labelled set made at
//! run time from a suite of datasets, clustered as the store clusters, and scored.
//!
//! The labelled set: every page of every dataset is one story, extracted from its own HTML
//! and again from three copies of its article, each put into a page template of this
//! module's own and lightly edited (a dateline, the last paragraph cut, a word changed or
//! added, a byline, a newsletter box inside the article). Pages whose gold texts are one text
//! (a benchmark holds some articles twice) are one story ([`SAME_GOLD_CONTAINMENT`]). The
//! distinct pairs watched most closely are mined: the pages whose gold texts are most alike
//! by topic ([`MINED_PAIRS`], TF-IDF cosine) and the pages of one site.
//!
//! The clustering is the store's: documents arrive in one shuffled order, each one's
//! candidates are the earlier ones that share a band key, [`fingerprint::cluster_of`]
//! decides. The sweep replays it with other shingle sizes, minimum lengths, band widths and
//! thresholds. Nothing is written: the suite's pages are only read.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::Hasher as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::dataset::{Dataset, DatasetError, DatasetPage, suite_members};
use crate::extract::Extraction;
use crate::extract::{Algorithm, EntryHints, SiteKnowledge, extract_site_page, template};
use crate::fingerprint::{self, Candidate, Fingerprint};
use crate::stable_hash::{Fnv, mix64};

/// Gold texts of which the shorter shares this much of its word 4-grams with the longer are
/// one story: read by eye, every pair above is one text (the same wire copy on two sites,
/// one test page's text reused), the closest pairs below are two write-ups of one event.
pub const SAME_GOLD_CONTAINMENT: f64 = 0.8;
/// The distinct page pairs most alike by topic that are watched by name.
pub const MINED_PAIRS: usize = 300;
/// The order documents arrive in: a shuffle drawn from this seed.
const ORDER_SEED: &str = "gleaner near-duplicates";

/// Why the evaluation could not run.
#[derive(Debug, thiserror::Error)]
pub enum DuplicatesError {
    #[error("{0} holds no dataset (no ground-truth.json in it or its subdirectories)")]
    EmptySuite(PathBuf),
    #[error(transparent)]
    Dataset(#[from] DatasetError),
}

/// One way of clustering: the fingerprint's settings and the threshold.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Setting {
    pub shingle_words: usize,
    pub min_shingles: usize,
    pub rows_per_band: usize,
    pub threshold: f64,
}

impl Setting {
    /// The values [`crate::fingerprint`] ships.
    pub fn shipped() -> Setting {
        Setting {
            shingle_words: fingerprint::SHINGLE_WORDS,
            min_shingles: fingerprint::MIN_SHINGLES,
            rows_per_band: fingerprint::ROWS_PER_BAND,
            threshold: fingerprint::SAME_STORY,
        }
    }
}

/// What one clustering got right and wrong, counted over pairs of documents.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Scores {
    /// Pairs in one predicted cluster that are one story, of all pairs in one cluster.
    pub precision: f64,
    /// Pairs of one story found in one cluster, of those whose documents both have a
    /// fingerprint.
    pub recall: f64,
    /// The same, of all pairs of one story (a document without a fingerprint misses all).
    pub recall_all: f64,
    pub story_pairs: usize,
    pub predicted_pairs: usize,
    /// Pairs of distinct stories put into one cluster: the worse error.
    pub distinct_merged: usize,
    /// Of those, pairs of documents of the mined same-topic pages.
    pub mined_merged: usize,
    /// Of those, pairs of documents of pages of one site.
    pub same_site_merged: usize,
    /// Stories with two fingerprinted documents or more.
    pub stories: usize,
    /// Of those, the ones found exactly: one cluster holding all of them and nothing else.
    pub stories_found: usize,
    /// Documents whose text is too short for a fingerprint.
    pub unfingerprinted: usize,
}

/// Quantiles (nearest rank) of a set of similarities.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Distribution {
    pub count: usize,
    pub min: f64,
    pub p01: f64,
    pub p05: f64,
    pub p25: f64,
    pub p50: f64,
    pub p75: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

impl Distribution {
    fn of(mut values: Vec<f64>) -> Distribution {
        if values.is_empty() {
            return Distribution::default();
        }
        values.sort_by(f64::total_cmp);
        let at = |share: f64| {
            let rank = ((share * values.len() as f64).ceil() as usize).clamp(1, values.len());
            values[rank - 1]
        };
        Distribution {
            count: values.len(),
            min: values[0],
            p01: at(0.01),
            p05: at(0.05),
            p25: at(0.25),
            p50: at(0.5),
            p75: at(0.75),
            p95: at(0.95),
            p99: at(0.99),
            max: values[values.len() - 1],
        }
    }
}

/// A mined pair of distinct pages on one topic, with how alike their documents came out.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MinedPair {
    pub first: String,
    pub second: String,
    /// TF-IDF cosine of the gold texts.
    pub topic_cosine: f64,
    /// The highest fingerprint similarity between a document of one and one of the other.
    pub similarity: f64,
}

/// One row of the sweep.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SweepRow {
    pub setting: Setting,
    pub scores: Scores,
}

/// The whole evaluation.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DuplicatesReport {
    pub pages: usize,
    pub documents: usize,
    /// Pages that share their story with another page of the suite.
    pub pages_in_shared_stories: usize,
    pub mined_pairs: usize,
    pub same_site_pairs: usize,
    pub setting: Setting,
    pub scores: Scores,
    /// Pairs of one story (both fingerprinted) that share a band key, so that the lookup
    /// offers one to the other.
    pub candidate_recall: f64,
    /// The same, of the pairs at or above the threshold: what the index loses.
    pub candidate_recall_above_threshold: f64,
    pub story_pairs: Distribution,
    pub mined: Distribution,
    /// Each document's highest similarity to a document of another story.
    pub closest_distinct: Distribution,
    /// The mined pairs whose documents came out most alike.
    pub closest_mined: Vec<MinedPair>,
    /// The pairs of distinct pages some of whose documents were put into one cluster.
    pub merged: Vec<MinedPair>,
    pub sweep: Vec<SweepRow>,
}

/// Builds the labelled set from the suite at `dir` (or the one dataset there), clusters it
/// with the shipped values and with every setting of the sweep, and reports.
pub fn evaluate(dir: &Path) -> Result<DuplicatesReport, DuplicatesError> {
    crate::extract::warm_up();
    let pages = load_suite(dir)?;
    let set = LabelledSet::build(&pages);
    let setting = Setting::shipped();
    let fingerprints: Vec<Option<Fingerprint>> = set
        .documents
        .par_iter()
        .map(|document| Fingerprint::of(&document.text))
        .collect();
    let roots = cluster(
        &set.order,
        &fingerprints,
        |f| f.band_keys().to_vec(),
        fingerprint::cluster_of,
    );
    let scores = set.score(&fingerprints, &roots);
    let (candidate_recall, candidate_recall_above_threshold) =
        set.candidate_recall(&fingerprints, setting.threshold);
    Ok(DuplicatesReport {
        pages: pages.len(),
        documents: set.documents.len(),
        pages_in_shared_stories: set.pages_in_shared_stories(),
        mined_pairs: set.mined.len(),
        same_site_pairs: set.same_site.len(),
        setting,
        scores,
        candidate_recall,
        candidate_recall_above_threshold,
        story_pairs: Distribution::of(set.story_pair_similarities(&fingerprints)),
        mined: Distribution::of(
            set.mined_similarities(&fingerprints)
                .iter()
                .map(|m| m.similarity)
                .collect(),
        ),
        closest_distinct: Distribution::of(set.closest_distinct(&fingerprints)),
        closest_mined: named(&pages, closest_mined(&set, &fingerprints)),
        merged: named(&pages, set.merged_pages(&fingerprints, &roots)),
        sweep: sweep(&set),
    })
}

/// The ten mined pairs whose documents came out most alike.
fn closest_mined(set: &LabelledSet, fingerprints: &[Option<Fingerprint>]) -> Vec<PagePair> {
    let mut mined = set.mined_similarities(fingerprints);
    mined.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
    mined.truncate(10);
    mined
}

/// Page pairs with their pages named `set/id`.
fn named(pages: &[SuitePage], pairs: Vec<PagePair>) -> Vec<MinedPair> {
    let name = |index: usize| format!("{}/{}", pages[index].set, pages[index].page.id);
    pairs
        .into_iter()
        .map(|m| MinedPair {
            first: name(m.pages.0),
            second: name(m.pages.1),
            topic_cosine: m.topic_cosine,
            similarity: m.similarity,
        })
        .collect()
}

/// A page of the suite with the name of its dataset.
struct SuitePage {
    set: String,
    page: DatasetPage,
}

/// Every page of every dataset under `dir`, or of the dataset `dir` itself.
fn load_suite(dir: &Path) -> Result<Vec<SuitePage>, DuplicatesError> {
    let mut members = suite_members(dir)?;
    if members.is_empty() {
        if !dir.join("ground-truth.json").is_file() {
            return Err(DuplicatesError::EmptySuite(dir.to_path_buf()));
        }
        let name = dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        members.push((name, dir.to_path_buf()));
    }
    let mut pages = Vec::new();
    for (set, path) in members {
        for page in Dataset::load(&path)?.pages {
            pages.push(SuitePage {
                set: set.clone(),
                page,
            });
        }
    }
    Ok(pages)
}

/// One document of the labelled set: a page's article as extracted from one page around it.
struct Document {
    page: usize,
    text: String,
}

/// A pair of pages with a measure of how alike they are.
#[derive(Clone, Copy)]
struct PagePair {
    pages: (usize, usize),
    topic_cosine: f64,
    similarity: f64,
}

/// The documents, the truth about them and the order they arrive in.
struct LabelledSet {
    documents: Vec<Document>,
    /// The story of each page (a page's index, or the least index of the pages it repeats).
    story_of_page: Vec<usize>,
    /// The documents of each page.
    documents_of_page: Vec<Vec<usize>>,
    mined: Vec<PagePair>,
    same_site: Vec<(usize, usize)>,
    /// Document indices in arrival order.
    order: Vec<usize>,
}

impl LabelledSet {
    fn build(pages: &[SuitePage]) -> LabelledSet {
        let story_of_page = same_stories(pages);
        let mined = same_topic_pairs(pages, &story_of_page, MINED_PAIRS);
        let same_site = same_site_pairs(pages, &story_of_page);
        let documents: Vec<Document> = pages
            .par_iter()
            .enumerate()
            .flat_map_iter(|(index, page)| variants::documents(index, &page.set, &page.page))
            .collect();
        let mut documents_of_page = vec![Vec::new(); pages.len()];
        for (index, document) in documents.iter().enumerate() {
            documents_of_page[document.page].push(index);
        }
        let order = shuffled(documents.len());
        LabelledSet {
            documents,
            story_of_page,
            documents_of_page,
            mined,
            same_site,
            order,
        }
    }

    fn story(&self, document: usize) -> usize {
        self.story_of_page[self.documents[document].page]
    }

    fn pages_in_shared_stories(&self) -> usize {
        let mut sizes: HashMap<usize, usize> = HashMap::new();
        for &story in &self.story_of_page {
            *sizes.entry(story).or_default() += 1;
        }
        sizes.values().filter(|&&size| size > 1).sum()
    }

    /// Pairwise precision and recall of `roots` (each document's cluster, by its first
    /// document), and the errors by kind.
    fn score(&self, fingerprints: &[Option<Fingerprint>], roots: &[Option<usize>]) -> Scores {
        let mut cells: HashMap<(usize, usize), usize> = HashMap::new();
        let mut clusters: HashMap<usize, usize> = HashMap::new();
        let mut stories: HashMap<usize, usize> = HashMap::new();
        let mut all_stories: HashMap<usize, usize> = HashMap::new();
        for (document, root) in roots.iter().enumerate() {
            *all_stories.entry(self.story(document)).or_default() += 1;
            if let Some(root) = *root {
                *cells.entry((root, self.story(document))).or_default() += 1;
                *clusters.entry(root).or_default() += 1;
                *stories.entry(self.story(document)).or_default() += 1;
            }
        }
        let pairs = |n: &usize| n * n.saturating_sub(1) / 2;
        let found: usize = cells.values().map(pairs).sum();
        let predicted: usize = clusters.values().map(pairs).sum();
        let story_pairs: usize = stories.values().map(pairs).sum();
        let all_pairs: usize = all_stories.values().map(pairs).sum();
        let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
        let exact = cells
            .iter()
            .filter(|((root, story), n)| {
                stories[story] > 1 && **n == stories[story] && clusters[root] == **n
            })
            .count();
        Scores {
            precision: ratio(found, predicted),
            recall: ratio(found, story_pairs),
            recall_all: ratio(found, all_pairs),
            story_pairs,
            predicted_pairs: predicted,
            distinct_merged: predicted - found,
            mined_merged: self.merged_between(self.mined.iter().map(|m| m.pages), roots),
            same_site_merged: self.merged_between(self.same_site.iter().copied(), roots),
            stories: stories.values().filter(|&&n| n > 1).count(),
            stories_found: exact,
            unfingerprinted: fingerprints.iter().filter(|f| f.is_none()).count(),
        }
    }

    /// The pairs of pages of distinct stories with documents in one cluster, each with the
    /// highest similarity between two of their documents.
    fn merged_pages(
        &self,
        fingerprints: &[Option<Fingerprint>],
        roots: &[Option<usize>],
    ) -> Vec<PagePair> {
        let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (document, root) in roots.iter().enumerate() {
            if let Some(root) = root {
                members.entry(*root).or_default().push(document);
            }
        }
        let mut pairs: BTreeMap<(usize, usize), f64> = BTreeMap::new();
        for documents in members.values() {
            for (i, &x) in documents.iter().enumerate() {
                for &y in &documents[i + 1..] {
                    let (a, b) = (self.documents[x].page, self.documents[y].page);
                    if self.story_of_page[a] == self.story_of_page[b] {
                        continue;
                    }
                    let similarity = match (&fingerprints[x], &fingerprints[y]) {
                        (Some(f), Some(g)) => f.similarity(g),
                        _ => 0.0,
                    };
                    let best = pairs.entry((a.min(b), a.max(b))).or_default();
                    *best = best.max(similarity);
                }
            }
        }
        pairs
            .into_iter()
            .map(|(pages, similarity)| PagePair {
                pages,
                topic_cosine: 0.0,
                similarity,
            })
            .collect()
    }

    /// Pairs of documents, one of each page of a pair, put into one cluster.
    fn merged_between(
        &self,
        page_pairs: impl Iterator<Item = (usize, usize)>,
        roots: &[Option<usize>],
    ) -> usize {
        page_pairs
            .map(|(a, b)| {
                let mut merged = 0;
                for &x in &self.documents_of_page[a] {
                    for &y in &self.documents_of_page[b] {
                        merged += usize::from(roots[x].is_some() && roots[x] == roots[y]);
                    }
                }
                merged
            })
            .sum()
    }

    /// Pairs of documents of one story, both fingerprinted.
    fn story_pairs<'a>(
        &'a self,
        fingerprints: &'a [Option<Fingerprint>],
    ) -> impl Iterator<Item = (&'a Fingerprint, &'a Fingerprint)> + 'a {
        let mut members: BTreeMap<usize, Vec<&Fingerprint>> = BTreeMap::new();
        for (document, fingerprint) in fingerprints.iter().enumerate() {
            if let Some(fingerprint) = fingerprint {
                members
                    .entry(self.story(document))
                    .or_default()
                    .push(fingerprint);
            }
        }
        members.into_values().flat_map(|members| {
            let mut pairs = Vec::new();
            for (i, a) in members.iter().enumerate() {
                for b in &members[i + 1..] {
                    pairs.push((*a, *b));
                }
            }
            pairs
        })
    }

    fn story_pair_similarities(&self, fingerprints: &[Option<Fingerprint>]) -> Vec<f64> {
        self.story_pairs(fingerprints)
            .map(|(a, b)| a.similarity(b))
            .collect()
    }

    /// Of the pairs of one story, the share that share a band key; and the same of those at
    /// or above `threshold`.
    fn candidate_recall(&self, fingerprints: &[Option<Fingerprint>], threshold: f64) -> (f64, f64) {
        let (mut pairs, mut offered, mut above, mut above_offered) = (0, 0, 0, 0);
        for (a, b) in self.story_pairs(fingerprints) {
            let keys = b.band_keys();
            let shared = a.band_keys().iter().any(|key| keys.contains(key));
            pairs += 1;
            offered += usize::from(shared);
            if a.similarity(b) >= threshold {
                above += 1;
                above_offered += usize::from(shared);
            }
        }
        let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
        (ratio(offered, pairs), ratio(above_offered, above))
    }

    /// The mined pairs, each with the highest similarity between their documents.
    fn mined_similarities(&self, fingerprints: &[Option<Fingerprint>]) -> Vec<PagePair> {
        self.mined
            .iter()
            .map(|pair| {
                let mut similarity: f64 = 0.0;
                for &x in &self.documents_of_page[pair.pages.0] {
                    for &y in &self.documents_of_page[pair.pages.1] {
                        if let (Some(a), Some(b)) = (&fingerprints[x], &fingerprints[y]) {
                            similarity = similarity.max(a.similarity(b));
                        }
                    }
                }
                PagePair {
                    similarity,
                    ..*pair
                }
            })
            .collect()
    }

    /// Each fingerprinted document's highest similarity to one of another story.
    fn closest_distinct(&self, fingerprints: &[Option<Fingerprint>]) -> Vec<f64> {
        (0..fingerprints.len())
            .into_par_iter()
            .filter_map(|x| {
                let a = fingerprints[x].as_ref()?;
                let story = self.story(x);
                let closest = fingerprints
                    .iter()
                    .enumerate()
                    .filter(|(y, _)| self.story(*y) != story)
                    .filter_map(|(_, b)| b.as_ref().map(|b| a.similarity(b)))
                    .fold(0.0, f64::max);
                Some(closest)
            })
            .collect()
    }
}

/// Clusters the documents as the store does: in `order`, each fingerprinted one looks up the
/// earlier ones that share one of its `keys`, and `decide` names the cluster it joins (by the
/// id, its arrival position, of the cluster's first). Gives each document its cluster's first
/// document, `None` without a fingerprint.
fn cluster(
    order: &[usize],
    fingerprints: &[Option<Fingerprint>],
    keys: impl Fn(&Fingerprint) -> Vec<i64>,
    decide: impl Fn(&Fingerprint, &[Candidate]) -> Option<i64>,
) -> Vec<Option<usize>> {
    let mut index: HashMap<i64, Vec<usize>> = HashMap::new();
    let mut duplicate_of: Vec<Option<i64>> = vec![None; order.len()];
    let mut roots = vec![None; fingerprints.len()];
    for (position, &document) in order.iter().enumerate() {
        let Some(fingerprint) = &fingerprints[document] else {
            continue;
        };
        let keys = keys(fingerprint);
        let mut earlier: Vec<usize> = keys
            .iter()
            .filter_map(|key| index.get(key))
            .flatten()
            .copied()
            .collect();
        earlier.sort_unstable();
        earlier.dedup();
        let candidates: Vec<Candidate> = earlier
            .into_iter()
            .filter_map(|at| {
                Some(Candidate {
                    id: at as i64,
                    duplicate_of: duplicate_of[at],
                    fingerprint: fingerprints[order[at]].clone()?,
                })
            })
            .collect();
        duplicate_of[position] = decide(fingerprint, &candidates);
        let first = duplicate_of[position].map_or(position, |id| id as usize);
        roots[document] = Some(order[first]);
        for key in keys {
            index.entry(key).or_default().push(position);
        }
    }
    roots
}

/// [`fingerprint::cluster_of`] with another threshold: the sweep's decision.
fn cluster_at(threshold: f64, fingerprint: &Fingerprint, candidates: &[Candidate]) -> Option<i64> {
    candidates
        .iter()
        .map(|candidate| (fingerprint.similarity(&candidate.fingerprint), candidate))
        .filter(|(similarity, _)| *similarity >= threshold)
        .max_by(|(a, x), (b, y)| a.total_cmp(b).then(y.id.cmp(&x.id)))
        .map(|(_, candidate)| candidate.duplicate_of.unwrap_or(candidate.id))
}

/// Band keys with `rows` values a band, from the stored form (the sweep's lookup; equal to
/// [`Fingerprint::band_keys`] in what matches, not in value).
fn band_keys_of(fingerprint: &Fingerprint, rows: usize) -> Vec<i64> {
    fingerprint
        .to_bytes()
        .chunks(rows * 4)
        .enumerate()
        .map(|(band, values)| {
            let mut hash = Fnv::new();
            hash.write(&(band as u32).to_le_bytes());
            hash.write(values);
            mix64(hash.finish()) as i64
        })
        .collect()
}

/// Shingle sizes, minimum lengths, rows per band and thresholds the sweep tries.
const SWEEP_SHINGLE_WORDS: [usize; 3] = [3, 4, 5];
const SWEEP_MIN_SHINGLES: [usize; 5] = [10, 20, 40, 60, 80];
const SWEEP_ROWS_PER_BAND: [usize; 3] = [2, 4, 8];
const SWEEP_THRESHOLDS: [f64; 11] = [
    0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80,
];

/// Every setting of the sweep, clustered and scored.
fn sweep(set: &LabelledSet) -> Vec<SweepRow> {
    let mut rows = Vec::new();
    for shingle_words in SWEEP_SHINGLE_WORDS {
        let shingled: Vec<(usize, Option<Fingerprint>)> = set
            .documents
            .par_iter()
            .map(|d| {
                let words = words(&d.text).count();
                let shingles = (words + 1).saturating_sub(shingle_words);
                (
                    shingles,
                    Fingerprint::with_shingles(&d.text, shingle_words, 1),
                )
            })
            .collect();
        let mut settings = Vec::new();
        for min_shingles in SWEEP_MIN_SHINGLES {
            for rows_per_band in SWEEP_ROWS_PER_BAND {
                for threshold in SWEEP_THRESHOLDS {
                    settings.push(Setting {
                        shingle_words,
                        min_shingles,
                        rows_per_band,
                        threshold,
                    });
                }
            }
        }
        rows.par_extend(settings.into_par_iter().map(|setting| {
            let fingerprints: Vec<Option<Fingerprint>> = shingled
                .iter()
                .map(|(shingles, f)| f.clone().filter(|_| *shingles >= setting.min_shingles))
                .collect();
            let roots = cluster(
                &set.order,
                &fingerprints,
                |f| band_keys_of(f, setting.rows_per_band),
                |f, c| cluster_at(setting.threshold, f, c),
            );
            SweepRow {
                setting,
                scores: set.score(&fingerprints, &roots),
            }
        }));
    }
    rows
}

/// The words of a text as [`crate::fingerprint`] cuts them: runs of letters and digits.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
}

/// `0..n` in the order drawn from [`ORDER_SEED`] (Fisher-Yates).
fn shuffled(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut draws = variants::Draws::seeded(&[ORDER_SEED]);
    for i in (1..n).rev() {
        order.swap(i, draws.below(i + 1));
    }
    order
}

/// The word 4-grams of a gold text, hashed, sorted, once each.
fn gold_shingles(text: &str) -> Vec<u64> {
    let hashes: Vec<u64> = words(text)
        .map(|word| {
            let mut hash = Fnv::new();
            hash.write(word.to_lowercase().as_bytes());
            hash.finish()
        })
        .collect();
    let mut shingles: Vec<u64> = hashes
        .windows(4)
        .map(|window| {
            let mut hash = Fnv::new();
            for word in window {
                hash.write(&word.to_le_bytes());
            }
            mix64(hash.finish())
        })
        .collect();
    shingles.sort_unstable();
    shingles.dedup();
    shingles
}

/// Gold texts shorter than this many 4-grams are never joined to another page's story.
const MIN_GOLD_SHINGLES: usize = 20;

/// Each page's story: pages whose gold texts are one text ([`SAME_GOLD_CONTAINMENT`]) are
/// joined, transitively, under the least index among them.
fn same_stories(pages: &[SuitePage]) -> Vec<usize> {
    let shingles: Vec<Vec<u64>> = pages
        .par_iter()
        .map(|p| gold_shingles(&p.page.gold))
        .collect();
    let mut postings: HashMap<u64, Vec<usize>> = HashMap::new();
    for (page, set) in shingles.iter().enumerate() {
        for &shingle in set {
            postings.entry(shingle).or_default().push(page);
        }
    }
    let joined: Vec<(usize, usize)> = (0..pages.len())
        .into_par_iter()
        .flat_map_iter(|a| {
            let mut shared: HashMap<usize, usize> = HashMap::new();
            for shingle in &shingles[a] {
                for &b in postings[shingle].iter().filter(|&&b| b > a) {
                    *shared.entry(b).or_default() += 1;
                }
            }
            let shingles = &shingles;
            shared.into_iter().filter_map(move |(b, count)| {
                let shorter = shingles[a].len().min(shingles[b].len());
                let contained = count as f64 / shorter.max(1) as f64;
                (shorter >= MIN_GOLD_SHINGLES && contained >= SAME_GOLD_CONTAINMENT)
                    .then_some((a, b))
            })
        })
        .collect();
    let mut story: Vec<usize> = (0..pages.len()).collect();
    let find = |story: &mut Vec<usize>, mut page: usize| {
        while story[page] != page {
            story[page] = story[story[page]];
            page = story[page];
        }
        page
    };
    for (a, b) in joined {
        let (a, b) = (find(&mut story, a), find(&mut story, b));
        story[a.max(b)] = a.min(b);
    }
    (0..pages.len())
        .map(|page| find(&mut story, page))
        .collect()
}

/// Words a topic ignores: function words (English, the language of most pages) and the
/// words of datelines.
const STOPWORDS: &[&str] = &[
    "the", "and", "for", "that", "with", "was", "are", "this", "from", "have", "has", "had", "not",
    "but", "his", "her", "they", "their", "its", "will", "would", "can", "could", "been", "were",
    "which", "who", "what", "when", "where", "there", "than", "then", "also", "about", "into",
    "more", "one", "all", "our", "out", "you", "your", "said", "says", "after", "over", "some",
    "she", "him", "them", "these", "those", "other", "such", "only", "just", "very",
];

/// The `limit` pairs of pages of distinct stories whose gold texts are most alike by topic:
/// TF-IDF cosine over words of three letters or more, function words and numbers left out.
fn same_topic_pairs(pages: &[SuitePage], story: &[usize], limit: usize) -> Vec<PagePair> {
    let vectors = topic_vectors(pages);
    let mut postings: HashMap<u32, Vec<(usize, f32)>> = HashMap::new();
    for (page, vector) in vectors.iter().enumerate() {
        for &(term, weight) in vector {
            postings.entry(term).or_default().push((page, weight));
        }
    }
    let mut pairs: Vec<PagePair> = (0..pages.len())
        .into_par_iter()
        .flat_map_iter(|a| {
            let mut dot: HashMap<usize, f32> = HashMap::new();
            for (term, weight) in &vectors[a] {
                for &(b, other) in postings[term].iter().filter(|(b, _)| *b > a) {
                    *dot.entry(b).or_default() += weight * other;
                }
            }
            dot.into_iter()
                .filter(move |&(b, cosine)| story[a] != story[b] && cosine > 0.1)
                .map(move |(b, cosine)| PagePair {
                    pages: (a, b),
                    topic_cosine: f64::from(cosine),
                    similarity: 0.0,
                })
        })
        .collect();
    pairs.sort_by(|x, y| {
        y.topic_cosine
            .total_cmp(&x.topic_cosine)
            .then(x.pages.cmp(&y.pages))
    });
    pairs.truncate(limit);
    pairs
}

/// Each page's gold text as a unit TF-IDF vector of (term, weight).
fn topic_vectors(pages: &[SuitePage]) -> Vec<Vec<(u32, f32)>> {
    let mut terms: HashMap<String, u32> = HashMap::new();
    let mut counts: Vec<HashMap<u32, u32>> = Vec::with_capacity(pages.len());
    for page in pages {
        let mut count: HashMap<u32, u32> = HashMap::new();
        for word in words(&page.page.gold).map(str::to_lowercase) {
            if word.chars().count() < 3
                || word.chars().all(|c| c.is_numeric())
                || STOPWORDS.contains(&word.as_str())
            {
                continue;
            }
            let next = terms.len() as u32;
            *count.entry(*terms.entry(word).or_insert(next)).or_default() += 1;
        }
        counts.push(count);
    }
    let mut frequency: HashMap<u32, usize> = HashMap::new();
    for count in &counts {
        for term in count.keys() {
            *frequency.entry(*term).or_default() += 1;
        }
    }
    let n = pages.len() as f32;
    counts
        .into_iter()
        .map(|count| {
            let mut vector: Vec<(u32, f32)> = count
                .into_iter()
                .filter(|(term, _)| frequency[term] > 1)
                .map(|(term, tf)| {
                    let idf = (n / frequency[&term] as f32).ln();
                    (term, (1.0 + (tf as f32).ln()) * idf)
                })
                .collect();
            let norm = vector.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
            if norm > 0.0 {
                vector.iter_mut().for_each(|(_, w)| *w /= norm);
            }
            vector
        })
        .collect()
}

/// Pairs of pages of one site (the host of the gold url) and of distinct stories.
fn same_site_pairs(pages: &[SuitePage], story: &[usize]) -> Vec<(usize, usize)> {
    let mut sites: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (index, page) in pages.iter().enumerate() {
        if let Some(site) = page.page.url.as_ref().and_then(template::site_of) {
            sites.entry(site).or_default().push(index);
        }
    }
    let mut pairs = Vec::new();
    for members in sites.values() {
        for (i, &a) in members.iter().enumerate() {
            pairs.extend(
                members[i + 1..]
                    .iter()
                    .filter(|&&b| story[a] != story[b])
                    .map(|&b| (a, b)),
            );
        }
    }
    pairs
}

/// The extraction every document goes through: the pipeline's, with no site knowledge.
fn extracted(html: &[u8], url: Option<&url::Url>, title: Option<&str>) -> Option<Extraction> {
    extract_site_page(
        html,
        None,
        url,
        EntryHints::title(title),
        Algorithm::Auto,
        SiteKnowledge::default(),
    )
    .extraction
    .ok()
}

impl fmt::Display for DuplicatesReport {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.scores;
        writeln!(
            out,
            "pages {}, documents {}, pages in shared stories {}, mined same-topic pairs {}, same-site pairs {}",
            self.pages,
            self.documents,
            self.pages_in_shared_stories,
            self.mined_pairs,
            self.same_site_pairs
        )?;
        let t = &self.setting;
        writeln!(
            out,
            "shipped: shingle words {}, min shingles {}, rows per band {}, threshold {:.2}",
            t.shingle_words, t.min_shingles, t.rows_per_band, t.threshold
        )?;
        writeln!(
            out,
            "precision {:.4}  recall {:.4}  (of all pairs {:.4})  story pairs {}  distinct pairs merged {} (mined {}, same site {})",
            s.precision,
            s.recall,
            s.recall_all,
            s.story_pairs,
            s.distinct_merged,
            s.mined_merged,
            s.same_site_merged
        )?;
        writeln!(
            out,
            "stories found exactly {} of {}; documents without a fingerprint {}",
            s.stories_found, s.stories, s.unfingerprinted
        )?;
        writeln!(
            out,
            "band lookup: candidate recall {:.4} (of pairs at or above the threshold {:.4})",
            self.candidate_recall, self.candidate_recall_above_threshold
        )?;
        writeln!(
            out,
            "similarity     count   min   p01   p05   p25   p50   p75   p95   p99   max"
        )?;
        for (name, d) in [
            ("story pairs", &self.story_pairs),
            ("mined pairs", &self.mined),
            ("closest other", &self.closest_distinct),
        ] {
            writeln!(
                out,
                "{name:<13} {:>6} {:.3} {:.3} {:.3} {:.3} {:.3} {:.3} {:.3} {:.3} {:.3}",
                d.count, d.min, d.p01, d.p05, d.p25, d.p50, d.p75, d.p95, d.p99, d.max
            )?;
        }
        writeln!(out, "distinct pages merged:")?;
        for pair in &self.merged {
            writeln!(
                out,
                "  {:.3} {} ~ {}",
                pair.similarity, pair.first, pair.second
            )?;
        }
        writeln!(out, "mined pairs that came out closest:")?;
        for pair in &self.closest_mined {
            writeln!(
                out,
                "  {:.3} (topic {:.3}) {} ~ {}",
                pair.similarity, pair.topic_cosine, pair.first, pair.second
            )?;
        }
        write_sweep(out, &self.sweep)
    }
}

/// The sweep, one line per shingle size, minimum and band width: recall / distinct pairs
/// merged at each threshold.
fn write_sweep(out: &mut fmt::Formatter<'_>, sweep: &[SweepRow]) -> fmt::Result {
    write!(out, "sweep: recall/merged  k  min rows")?;
    for threshold in SWEEP_THRESHOLDS {
        write!(out, " {threshold:>11.2}")?;
    }
    writeln!(out)?;
    for line in sweep.chunks(SWEEP_THRESHOLDS.len()) {
        let Some(first) = line.first() else {
            continue;
        };
        let s = first.setting;
        write!(
            out,
            "{:>23} {:>4} {:>4}",
            s.shingle_words, s.min_shingles, s.rows_per_band
        )?;
        for row in line {
            write!(
                out,
                " {:>6.4}/{:<4}",
                row.scores.recall, row.scores.distinct_merged
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The copies: an article's paragraphs edited and put into page templates of this module's
/// own, with deterministic draws so that every run builds the same set.
mod variants;
