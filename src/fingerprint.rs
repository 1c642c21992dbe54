//! Near-duplicate fingerprints of article text: MinHash over word shingles (Broder, "On the
//! resemblance and containment of documents", 1997), cut into bands for an indexed lookup
//! (locality-sensitive hashing: Leskovec, Rajaraman and Ullman, *Mining of Massive Datasets*,
//! §3.4).
//!
//! Owns [`Fingerprint`]: made from the plain text an extraction already produced, so that two
//! copies of one story (a wire dispatch on several sites, each with its own page chrome, a
//! dateline added or the last paragraph cut) get nearly the same values whatever their URL.
//! The store keeps each article's fingerprint and its [`Fingerprint::band_keys`]: an article
//! shares at least one band key with any earlier one whose text resembles it, so finding its
//! candidates is an index lookup, never a scan; [`Fingerprint::similarity`] then decides.
//! Why each number is what it is, with the labelled set it was measured on:
//! docs/algorithms.md#near-duplicates.
//!
//! Pure: text in, values out. The hashes are [`crate::stable_hash`]'s, so a fingerprint stored
//! by one build compares with one made by the next.

use std::hash::Hasher as _;

use crate::stable_hash::{Fnv, SplitMix64, mix64};

/// Words per shingle. 4: three-word phrases are shared by unrelated stories (3 merges distinct
/// pages up to a threshold of 0.5), five cost recall on edited copies; 4 merges none at any
/// threshold from 0.3 to 0.8 (docs/algorithms.md#near-duplicates).
pub const SHINGLE_WORDS: usize = 4;
/// MinHash values per fingerprint: the similarity's standard error is at most
/// `0.5 / sqrt(64)` = 0.06.
pub const HASHES: usize = 64;
/// Values per band. 4: 16 bands whose S-curve turns at [`SAME_STORY`] (0.99 of copies at 0.7
/// are candidates, unrelated texts under 1 in 10,000); 2 rows merge distinct pages below 0.45
/// and offer every article ~1 % of the store, 8 lose a sixth of the copies
/// (docs/algorithms.md#near-duplicates).
pub const ROWS_PER_BAND: usize = 4;
/// Band keys per fingerprint, one index entry each.
pub const BANDS: usize = HASHES / ROWS_PER_BAND;
/// Texts with fewer shingles get no fingerprint. 40: a line or two (a caption, a teaser, an
/// error message) is too short to tell a repeat from a coincidence; 20 gains only the bench's
/// reused test text, 60 loses twice the documents (docs/algorithms.md#near-duplicates).
pub const MIN_SHINGLES: usize = 40;
/// The least [`Fingerprint::similarity`] at which two texts are the same story. 0.5: no
/// distinct pair merged from 0.3 to 0.8, recall within 0.006 of the best from 0.3 to 0.5, one
/// standard error above the closest distinct pair (0.44) (docs/algorithms.md#near-duplicates).
pub const SAME_STORY: f64 = 0.5;

/// The MinHash signature of one text: for each of [`HASHES`] hash functions, the least value
/// over the text's shingles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    values: [u32; HASHES],
}

impl Fingerprint {
    /// The fingerprint of an article's plain text, or `None` when it has fewer than
    /// [`MIN_SHINGLES`] shingles.
    pub fn of(text: &str) -> Option<Fingerprint> {
        crate::stages::measure(crate::stages::Stage::Fingerprint, || {
            Fingerprint::with_shingles(text, SHINGLE_WORDS, MIN_SHINGLES)
        })
    }

    /// [`Fingerprint::of`] with other shingle sizes (the evaluation measures them).
    pub fn with_shingles(
        text: &str,
        shingle_words: usize,
        min_shingles: usize,
    ) -> Option<Fingerprint> {
        let shingle_words = shingle_words.max(1);
        let words = word_hashes(text);
        let shingles = words.len().checked_sub(shingle_words - 1)?;
        if shingles < min_shingles.max(1) {
            return None;
        }
        let permutations = permutations();
        let mut values = [u32::MAX; HASHES];
        for window in words.windows(shingle_words) {
            let mut shingle = Fnv::new();
            for word in window {
                shingle.write(&word.to_le_bytes());
            }
            let shingle = mix64(shingle.finish());
            for (value, (multiplier, offset)) in values.iter_mut().zip(permutations.iter()) {
                // Multiply-shift: a cheap member of a universal family, enough for MinHash
                // over keys that are already well mixed.
                let hashed = (multiplier.wrapping_mul(shingle).wrapping_add(*offset) >> 32) as u32;
                *value = (*value).min(hashed);
            }
        }
        Some(Fingerprint { values })
    }

    /// The share of hash functions on which the two agree: an unbiased estimate of the
    /// Jaccard similarity of the two texts' shingle sets.
    pub fn similarity(&self, other: &Fingerprint) -> f64 {
        let equal = self
            .values
            .iter()
            .zip(other.values.iter())
            .filter(|(a, b)| a == b)
            .count();
        equal as f64 / HASHES as f64
    }

    /// Whether the two texts tell the same story ([`SAME_STORY`]).
    pub fn same_story(&self, other: &Fingerprint) -> bool {
        self.similarity(other) >= SAME_STORY
    }

    /// One key per band: a hash of the band's number and its values. Stored as signed 64-bit
    /// integers, the type both databases index.
    pub fn band_keys(&self) -> [i64; BANDS] {
        let mut keys = [0i64; BANDS];
        for (band, (key, rows)) in keys
            .iter_mut()
            .zip(self.values.chunks_exact(ROWS_PER_BAND))
            .enumerate()
        {
            let mut hash = Fnv::new();
            hash.write(&(band as u32).to_le_bytes());
            for value in rows {
                hash.write(&value.to_le_bytes());
            }
            *key = mix64(hash.finish()) as i64;
        }
        keys
    }

    /// The stored form: the values, little-endian, 4 bytes each.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.values
            .iter()
            .flat_map(|value| value.to_le_bytes())
            .collect()
    }

    /// Reads the stored form back; `None` when `bytes` is not one.
    pub fn from_bytes(bytes: &[u8]) -> Option<Fingerprint> {
        if bytes.len() != HASHES * 4 {
            return None;
        }
        let mut values = [0u32; HASHES];
        for (value, chunk) in values.iter_mut().zip(bytes.chunks_exact(4)) {
            *value = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        Some(Fingerprint { values })
    }
}

/// An earlier article that shares a band key with a new one: its id, the first article of its
/// cluster (`None` when it is that first article) and its fingerprint.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: i64,
    pub duplicate_of: Option<i64>,
    pub fingerprint: Fingerprint,
}

/// The cluster a new article joins: the first article of the cluster of the candidate it
/// resembles most (the lowest id among equals), when that one tells the same story. Every
/// member then points at the cluster's first article, and the first at nothing.
pub fn cluster_of(fingerprint: &Fingerprint, candidates: &[Candidate]) -> Option<i64> {
    candidates
        .iter()
        .map(|candidate| (fingerprint.similarity(&candidate.fingerprint), candidate))
        .filter(|(similarity, _)| *similarity >= SAME_STORY)
        .max_by(|(a, x), (b, y)| a.total_cmp(b).then(y.id.cmp(&x.id)))
        .map(|(_, candidate)| candidate.duplicate_of.unwrap_or(candidate.id))
}

/// A hash per word, in order. A word is a run of letters and digits, lowercased: punctuation,
/// spacing and case differ between two sites' copies of one text, words do not.
fn word_hashes(text: &str) -> Vec<u64> {
    let mut hashes = Vec::with_capacity(text.len() / 6);
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
    {
        let mut hash = Fnv::new();
        if word.is_ascii() {
            for byte in word.bytes() {
                hash.write_byte(byte.to_ascii_lowercase());
            }
        } else {
            let mut buffer = [0u8; 4];
            for lower in word.chars().flat_map(char::to_lowercase) {
                hash.write(lower.encode_utf8(&mut buffer).as_bytes());
            }
        }
        hashes.push(hash.finish());
    }
    hashes
}

/// The [`HASHES`] hash functions' multipliers (odd) and offsets: fixed, so that fingerprints
/// made by different processes compare.
fn permutations() -> [(u64, u64); HASHES] {
    let mut stream = SplitMix64::new(0x6a09_e667_f3bc_c908);
    let mut permutations = [(0, 0); HASHES];
    for permutation in permutations.iter_mut() {
        *permutation = (stream.next_u64() | 1, stream.next_u64());
    }
    permutations
}

#[cfg(test)]
mod tests {
    use super::*;

    fn story(words: usize, seed: usize) -> String {
        (0..words)
            .map(|i| format!("w{}", (i * 7919 + seed * 104_729) % 100_003))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn short_texts_get_no_fingerprint() {
        assert_eq!(Fingerprint::of("A caption of a few words."), None);
        assert!(Fingerprint::of(&story(200, 1)).is_some());
    }

    #[test]
    fn case_punctuation_and_spacing_do_not_matter() {
        let text = story(150, 2);
        let shouted = text.to_uppercase().replace(' ', " ,\n ");
        assert_eq!(Fingerprint::of(&text), Fingerprint::of(&shouted));
    }

    #[test]
    fn an_edited_copy_is_the_same_story_and_another_text_is_not() {
        let original = story(400, 3);
        let words: Vec<&str> = original.split(' ').collect();
        // A dateline added, the last tenth cut.
        let copy = format!("LONDON (Agency) - {}", words[..360].join(" "));
        let a = Fingerprint::of(&original).expect("long enough");
        let b = Fingerprint::of(&copy).expect("long enough");
        assert!(a.same_story(&b), "similarity {}", a.similarity(&b));
        assert!(a.band_keys().iter().any(|key| b.band_keys().contains(key)));
        let other = Fingerprint::of(&story(400, 4)).expect("long enough");
        assert!(!a.same_story(&other), "similarity {}", a.similarity(&other));
    }

    #[test]
    fn a_new_copy_joins_the_cluster_of_the_closest_earlier_one() {
        let original = Fingerprint::of(&story(300, 6)).expect("long enough");
        let unrelated = Fingerprint::of(&story(300, 7)).expect("long enough");
        let candidate = |id, duplicate_of, fingerprint: &Fingerprint| Candidate {
            id,
            duplicate_of,
            fingerprint: fingerprint.clone(),
        };
        assert_eq!(cluster_of(&original, &[]), None);
        assert_eq!(
            cluster_of(&original, &[candidate(3, None, &unrelated)]),
            None
        );
        assert_eq!(
            cluster_of(
                &original,
                &[
                    candidate(5, Some(2), &original),
                    candidate(4, None, &original)
                ]
            ),
            Some(4),
            "equals: the lowest id, which is itself a cluster's first"
        );
        assert_eq!(
            cluster_of(&original, &[candidate(9, Some(2), &original)]),
            Some(2)
        );
    }

    #[test]
    fn the_stored_form_reads_back() {
        let fingerprint = Fingerprint::of(&story(100, 5)).expect("long enough");
        let bytes = fingerprint.to_bytes();
        assert_eq!(bytes.len(), HASHES * 4);
        assert_eq!(Fingerprint::from_bytes(&bytes), Some(fingerprint));
        assert_eq!(Fingerprint::from_bytes(&bytes[1..]), None);
    }
}
