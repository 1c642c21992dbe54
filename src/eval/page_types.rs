//! The page-type detector's evaluation (`gleaner eval --page-types`): every page of a set
//! parsed and its type detected, against the gold type (a set not labelled by type holds
//! articles); the confusion matrix, the accuracy per gold type, the accuracy per fold of
//! sites (pages grouped by registrable domain into [`FOLDS`] folds: the rules are written by
//! hand, so a fold's accuracy says how they carry to sites other than the ones read), and the
//! share of a set's articles called something else.

use std::fmt;
use std::hash::Hasher as _;

use rayon::prelude::*;

use super::dataset::Dataset;
use crate::extract::Page;
use crate::extract::page_type::PageType;
use crate::stable_hash::Fnv;

/// The folds of sites.
pub const FOLDS: usize = 5;

/// The detected type of every page of `dataset`, in page order.
pub fn detect_all(dataset: &Dataset) -> Vec<PageType> {
    dataset
        .pages
        .par_iter()
        .map(|page| Page::parse(&page.html, None, page.url.as_ref(), None).page_type)
        .collect()
}

/// The registrable domain of a page's address, approximately: the last two labels of the
/// host, three under a two-letter country code whose second level is short (`co.uk`).
pub fn registrable_domain(url: &url::Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').collect();
    let take = match labels.as_slice() {
        [.., second, top] if top.len() == 2 && second.len() <= 3 && labels.len() >= 3 => 3,
        _ => 2,
    };
    labels[labels.len().saturating_sub(take)..].join(".")
}

/// The fold of a site.
fn fold_of(domain: &str) -> usize {
    let mut hasher = Fnv::new();
    hasher.write(domain.as_bytes());
    (hasher.finish() % FOLDS as u64) as usize
}

/// Gold against detected types, over one or more sets.
#[derive(Debug, Clone, Default)]
pub struct Confusion {
    /// `matrix[gold][detected]`, indexed like [`PageType::ALL`].
    pub matrix: [[usize; 7]; 7],
    /// Per fold of sites: pages, pages detected right.
    pub folds: [(usize, usize); FOLDS],
    /// Per set: its name, its gold articles, those called something else.
    pub sets: Vec<(String, usize, usize)>,
}

fn index_of(page_type: PageType) -> usize {
    PageType::ALL
        .iter()
        .position(|&t| t == page_type)
        .unwrap_or(0)
}

impl Confusion {
    /// Adds one set's pages and their detected types.
    pub fn add(&mut self, name: &str, dataset: &Dataset, detected: &[PageType]) {
        let mut articles = (0, 0);
        for (page, &found) in dataset.pages.iter().zip(detected) {
            let gold = page.gold_type();
            self.matrix[index_of(gold)][index_of(found)] += 1;
            let fold = fold_of(
                &page
                    .url
                    .as_ref()
                    .map(registrable_domain)
                    .unwrap_or_default(),
            );
            self.folds[fold].0 += 1;
            self.folds[fold].1 += usize::from(gold == found);
            if gold == PageType::Article {
                articles.0 += 1;
                articles.1 += usize::from(found != PageType::Article);
            }
        }
        self.sets.push((name.to_string(), articles.0, articles.1));
    }

    /// The share of the pages of gold type `gold` detected as such (`None` without any).
    pub fn accuracy_of(&self, gold: PageType) -> Option<f64> {
        let row = &self.matrix[index_of(gold)];
        let total: usize = row.iter().sum();
        (total > 0).then(|| row[index_of(gold)] as f64 / total as f64)
    }

    /// The share of all pages detected right.
    pub fn accuracy(&self) -> f64 {
        let total: usize = self.matrix.iter().flatten().sum();
        let right: usize = (0..7).map(|i| self.matrix[i][i]).sum();
        if total == 0 {
            0.0
        } else {
            right as f64 / total as f64
        }
    }
}

/// `--json`, as `../specs/cli.md` ("eval") gives it: `{accuracy, per_type: {type: {pages,
/// accuracy}}, confusion: {gold: {detected: n}}}` (types without gold pages left out), then
/// `folds` (`[{pages, accuracy}]`, by fold of sites) and `sets` (`[{name, articles,
/// called_other}]`).
impl serde::Serialize for Confusion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        use serde_json::{Map, Value, json};
        let mut per_type = Map::new();
        let mut confusion = Map::new();
        for gold in PageType::ALL {
            let row = &self.matrix[index_of(gold)];
            let pages: usize = row.iter().sum();
            if pages == 0 {
                continue;
            }
            per_type.insert(
                gold.as_str().to_string(),
                json!({"pages": pages, "accuracy": self.accuracy_of(gold)}),
            );
            let detected: Map<String, Value> = PageType::ALL
                .iter()
                .zip(row)
                .filter(|(_, count)| **count > 0)
                .map(|(found, count)| (found.as_str().to_string(), json!(count)))
                .collect();
            confusion.insert(gold.as_str().to_string(), Value::Object(detected));
        }
        let folds: Vec<Value> = self
            .folds
            .iter()
            .map(|&(pages, right)| {
                let accuracy = (pages > 0).then(|| right as f64 / pages as f64);
                json!({"pages": pages, "accuracy": accuracy})
            })
            .collect();
        let sets: Vec<Value> = self
            .sets
            .iter()
            .map(|(name, articles, called)| {
                json!({"name": name, "articles": articles, "called_other": called})
            })
            .collect();
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("accuracy", &self.accuracy())?;
        map.serialize_entry("per_type", &per_type)?;
        map.serialize_entry("confusion", &confusion)?;
        map.serialize_entry("folds", &folds)?;
        map.serialize_entry("sets", &sets)?;
        map.end()
    }
}

impl fmt::Display for Confusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<15}", "gold \\ detected")?;
        for page_type in PageType::ALL {
            write!(f, " {:>13}", page_type.as_str())?;
        }
        writeln!(f, " {:>8}", "accuracy")?;
        for gold in PageType::ALL {
            let row = &self.matrix[index_of(gold)];
            if row.iter().sum::<usize>() == 0 {
                continue;
            }
            write!(f, "{:<15}", gold.as_str())?;
            for count in row {
                write!(f, " {count:>13}")?;
            }
            let accuracy = self.accuracy_of(gold).unwrap_or(0.0);
            writeln!(f, " {accuracy:>8.3}")?;
        }
        writeln!(f, "accuracy over all pages: {:.3}", self.accuracy())?;
        for (fold, (pages, right)) in self.folds.iter().enumerate() {
            if *pages > 0 {
                let share = *right as f64 / *pages as f64;
                writeln!(
                    f,
                    "fold {fold} of sites: {pages} pages, accuracy {share:.3}"
                )?;
            }
        }
        for (name, articles, called) in &self.sets {
            let share = if *articles > 0 {
                *called as f64 / *articles as f64
            } else {
                0.0
            };
            writeln!(
                f,
                "{name}: {called} of {articles} articles called another type ({:.1} %)",
                share * 100.0
            )?;
        }
        Ok(())
    }
}
