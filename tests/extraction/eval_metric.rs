//! The benchmark metric on hand-computed cases.

use gleaner::eval::metric::{PageCounts, score_page, shingles, summarize, tokenize};

#[test]
fn tokens_are_pythons_unicode_word_runs() {
    assert_eq!(tokenize("Hello, wörld_1 — 42!"), ["Hello", "wörld_1", "42"]);
    assert_eq!(tokenize("日本語のテキスト。次"), ["日本語のテキスト", "次"]);
    // A combining mark is not a word character in Python (category Mn), so "cafe\u{301}"
    // is the token "cafe" followed by a separator.
    assert_eq!(tokenize("cafe\u{301} au lait"), ["cafe", "au", "lait"]);
    // Numbers of every kind are word characters: superscript two and Roman numeral twelve.
    assert_eq!(tokenize("x\u{b2} \u{216b}"), ["x\u{b2}", "\u{216b}"]);
    assert!(tokenize("  ... —  ").is_empty());
}

#[test]
fn shingles_are_four_token_windows() {
    let tokens = tokenize("a b c d e f");
    let counts = shingles(&tokens);
    assert_eq!(counts.len(), 3);
    assert_eq!(counts.get(&vec!["a", "b", "c", "d"]), Some(&1));
    assert_eq!(counts.get(&vec!["c", "d", "e", "f"]), Some(&1));
    // One to three tokens give one shorter shingle; none give none.
    assert_eq!(shingles(&["a", "b"]).get(&vec!["a", "b"]), Some(&1));
    assert!(shingles(&[]).is_empty());
    // Repeats are counted: "x y z w x y z w" has windows xyzw, yzwx, zwxy, wxyz, xyzw.
    let repeated = tokenize("x y z w x y z w");
    assert_eq!(shingles(&repeated).get(&vec!["x", "y", "z", "w"]), Some(&2));
}

#[test]
fn page_counts_by_hand() {
    // gold shingles {abcd, bcde}, prediction {abcd}: tp 1, fp 0, fn 1.
    let counts = score_page("a b c d e", "a b c d");
    assert_eq!((counts.tp, counts.fp, counts.fn_), (1, 0, 1));
    assert_eq!((counts.precision(), counts.recall()), (1.0, 0.5));
    assert!(!counts.exact);

    // prediction adds two tokens: {abcd, bcde, cdex, dexy}: tp 2, fp 2, fn 0.
    let counts = score_page("a b c d e", "a b c d e x y");
    assert_eq!((counts.tp, counts.fp, counts.fn_), (2, 2, 0));
    assert_eq!((counts.precision(), counts.recall()), (0.5, 1.0));

    // Same tokens, different punctuation: exact, precision and recall 1.
    let counts = score_page(
        "Hello, world: again and again",
        "Hello world again and again!",
    );
    assert!(counts.exact);
    assert_eq!((counts.precision(), counts.recall()), (1.0, 1.0));

    // Empty prediction: nothing predicted, recall 0.
    let counts = score_page("a b c d", "");
    assert_eq!((counts.tp, counts.fp, counts.fn_), (0, 0, 1));
    assert!(!counts.predicted && counts.gold);
    assert_eq!(counts.recall(), 0.0);
}

#[test]
fn summary_means_over_the_right_pages() {
    let pages = [
        score_page("a b c d e", "a b c d"),       // P 1, R 0.5
        score_page("a b c d e", "a b c d e x y"), // P 0.5, R 1
        score_page("a b c d", ""),                // no prediction: R 0, not in P
        score_page("", "stray words here"),       // no gold: P 0, not in R
        score_page("one two three four five", "one two three four five"), // exact
    ];
    let summary = summarize(&pages);
    // precision over the 4 pages with a prediction: (1 + 0.5 + 0 + 1) / 4
    let precision = 2.5 / 4.0;
    // recall over the 4 pages with gold: (0.5 + 1 + 0 + 1) / 4
    let recall = 2.5 / 4.0;
    assert!((summary.precision - precision).abs() < 1e-12);
    assert!((summary.recall - recall).abs() < 1e-12);
    assert!((summary.f1 - 2.0 * precision * recall / (precision + recall)).abs() < 1e-12);
    assert_eq!(summary.pages, 5);
    assert_eq!(summary.empty, 1);
    assert!((summary.accuracy - 1.0 / 5.0).abs() < 1e-12);
}

#[test]
fn empty_summary_is_zero() {
    let summary = summarize(&[] as &[PageCounts]);
    assert_eq!(
        (summary.precision, summary.recall, summary.f1),
        (0.0, 0.0, 0.0)
    );
}
