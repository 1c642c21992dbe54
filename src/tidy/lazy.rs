//! Lazy loading: the attributes where scripts keep an image's or a player's real address until
//! it scrolls into view. One list for both of its readers: the serializer resolves them into
//! `src` and `srcset` ([`super::image_source`], [`super::image_srcset`], an `<iframe>`'s
//! source), and the pass before parsing keeps them when it drops the other `data-*` attributes
//! ([`super::depth::prepare_for_parsing`]).

/// Attributes that lazy-loading scripts read the real image address from, best first.
pub(super) const LAZY_SRC_ATTRIBUTES: &[&str] = &[
    "data-src",
    "data-lazy-src",
    "data-original",
    "data-lazy",
    "data-url",
    "data-hi-res-src",
    "data-full-src",
    "data-orig-src",
];

/// Attributes holding a lazy `srcset`.
pub(super) const LAZY_SRCSET_ATTRIBUTES: &[&str] = &["data-srcset", "data-lazy-srcset"];
