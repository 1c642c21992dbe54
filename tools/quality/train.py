#!/usr/bin/env python3
"""Trains gleaner's quality estimate (src/extract/assessment/quality_model.json).

Data preparation: `gleaner eval ../shared/bench --features rows.jsonl` writes one row per page
and candidate of `auto` (CUTER, ECON, CETR, the content scorer): the dataset, the page id, the candidate, whether
the cascade's rules prefer it, its F1 against the gold text, and the feature vector of
`extract::quality::features`.

Training: gradient-boosted classification trees score a candidate's chance of a good
extraction (F1 at least 0.8, the line `quality_auc` draws), and a logistic curve fitted by least
squares maps that score to the expected F1 (monotone, so the ranking is the trees'). Every
figure printed is held out: for each dataset, a model trained on the other four estimates its
pages, `auto`'s choice is simulated (the cascade's candidate, replaced by another whose estimate
is higher by more than the margin), and the held-out set's mean F1, its ROC AUC for pages below
F1 0.8 and the calibration table (estimate bins against mean F1) are reported. The model
shipped is then trained on all five sets.

    python3 tools/quality/train.py rows.jsonl [--out src/extract/assessment/quality_model.json]
    python3 tools/quality/train.py rows.jsonl --second 0.7:0.1,0.8:0.05   # the second opinion
"""

import argparse
import json
import sys
from collections import defaultdict

import numpy as np
from scipy.optimize import curve_fit
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold

POOR_F1 = 0.8
SECOND = "readability"
PARAMS = dict(
    n_estimators=120,
    max_depth=3,
    learning_rate=0.05,
    subsample=0.8,
    min_samples_leaf=20,
    random_state=7,
)


def load(path):
    pages = defaultdict(dict)
    for line in open(path, encoding="utf-8"):
        row = json.loads(line)
        pages[(row["dataset"], row["id"])][row["candidate"]] = row
    return pages


def matrix(pages, keys):
    x, y = [], []
    for key in keys:
        for row in pages[key].values():
            if not row["empty"]:
                x.append(row["features"])
                y.append(row["f1"])
    return np.array(x), np.array(y)


class Model:
    """Trees that score the chance of a good extraction (F1 at least 0.8), and the curve that
    maps their score to the expected F1."""

    def __init__(self, pages, keys):
        x, y = matrix(pages, keys)
        self.trees = GradientBoostingClassifier(**PARAMS).fit(x, y >= POOR_F1)
        # The curve is fitted to scores of rows the trees did not see (5 folds): scores of
        # their own training rows are more extreme than a new page's.
        score = np.zeros(len(y))
        for train, test in KFold(5, shuffle=True, random_state=7).split(x):
            fold = GradientBoostingClassifier(**PARAMS).fit(x[train], y[train] >= POOR_F1)
            score[test] = fold.decision_function(x[test])
        (self.scale, self.shift), _ = curve_fit(
            lambda s, a, b: 1.0 / (1.0 + np.exp(-(a * s + b))), score, y, p0=(1.0, 0.0)
        )

    def predict(self, x):
        score = self.trees.decision_function(np.atleast_2d(x))
        return 1.0 / (1.0 + np.exp(-(self.scale * score + self.shift)))


def fit(pages, keys):
    return Model(pages, keys)


def choose(page, estimates, margin):
    """auto's choice: the preferred candidate unless another beats it by `margin`."""
    preferred = next((c for c, r in page.items() if r["preferred"]), None)
    best, best_q = None, -1.0
    if preferred is not None and not page[preferred]["empty"]:
        best, best_q = preferred, estimates[preferred] + margin
    for c, row in page.items():
        if c != preferred and not row["empty"] and estimates[c] > best_q:
            best, best_q = c, estimates[c]
    if best is None:
        return None, 0.0, 0.0
    return best, estimates[best], page[best]["f1"]


def simulate(model, pages, keys, margin):
    chosen = []
    for key in keys:
        page = pages[key]
        estimates = {}
        for c, row in page.items():
            if not row["empty"]:
                estimates[c] = model.predict(row["features"])[0]
        chosen.append(choose(page, estimates, margin))
    return chosen


def report(name, chosen, keys, pages):
    f1 = np.array([c[2] for c in chosen])
    q = np.array([c[1] for c in chosen])
    preferred = np.array(
        [next((r["f1"] for r in pages[k].values() if r["preferred"]), 0.0) for k in keys]
    )
    poor = f1 < POOR_F1
    auc = roc_auc_score(~poor, q) if 0 < poor.sum() < len(poor) else float("nan")
    print(
        f"{name:<14} pages {len(keys):4d}  poor {poor.sum():3d}  "
        f"mean F1 cascade {preferred.mean():.4f} chosen {f1.mean():.4f}  AUC {auc:.3f}"
    )
    return q, f1, auc


def calibration(q, f1):
    print("| quality | pages | mean F1 |")
    print("|---|---:|---:|")
    edges = [0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01]
    for lo, hi in zip(edges, edges[1:]):
        sel = (q >= lo) & (q < hi)
        if sel.any():
            print(f"| {lo:.1f}–{min(hi, 1.0):.1f} | {sel.sum()} | {f1[sel].mean():.3f} |")


def export(model, names, path):
    trees = []
    for (estimator,) in model.trees.estimators_:
        t = estimator.tree_
        trees.append(
            {
                "feature": [int(max(f, 0)) for f in t.feature],
                "threshold": [float(v) for v in t.threshold],
                "left": [int(v) for v in t.children_left],
                "right": [int(v) for v in t.children_right],
                "value": [float(v) for v in t.value[:, 0, 0]],
            }
        )
    # The classifier's raw score starts from the log-odds of a good extraction in training.
    base = float(model.trees._raw_predict_init(np.zeros((1, len(names))))[0, 0])
    with open(path, "w", encoding="utf-8") as out:
        json.dump(
            {
                "features": names,
                "base": base,
                "rate": model.trees.learning_rate,
                "scale": float(model.scale),
                "shift": float(model.shift),
                "trees": trees,
            },
            out,
            separators=(",", ":"),
        )
        out.write("\n")


def sweep(pages, datasets, margins):
    """Held-out mean F1 per set of `auto`'s choice at each margin (1 keeps the cascade's)."""
    models = {h: fit(pages, [k for k in pages if k[0] != h]) for h in datasets}
    print("margin  " + "  ".join(f"{h:>11}" for h in datasets) + "    mean")
    for margin in margins:
        means = []
        for held in datasets:
            test = sorted(k for k in pages if k[0] == held)
            chosen = simulate(models[held], pages, test, margin)
            means.append(np.mean([c[2] for c in chosen]))
        print(f"{margin:6.2f}  " + "  ".join(f"{m:11.4f}" for m in means) + f"  {np.mean(means):.4f}")


def second_opinion(pages, datasets, grid):
    """Held-out mean F1 per set of `auto` with the content scorer's second opinion: taken
    where it ends CUTER's article early, and, where the cascade's estimate is below `below`,
    when its own estimate is higher by more than `margin`; with the oracle (the better of the two on every page) and the share of the
    oracle's gain the estimate captures."""
    models = {h: fit(pages, [k for k in pages if k[0] != h]) for h in datasets}
    estimates = {}
    for held in datasets:
        for key in (k for k in pages if k[0] == held):
            for c, row in pages[key].items():
                if not row["empty"]:
                    estimates[key, c] = models[held].predict(row["features"])[0]

    def f1_of(key, c):
        row = pages[key].get(c)
        return 0.0 if row is None or row["empty"] else row["f1"]

    print("below  margin  " + "  ".join(f"{h:>11}" for h in datasets) + "    mean  asked  taken  captured")
    for below, margin in grid:
        means, asked, taken, gain, oracle_gain = [], 0, 0, 0.0, 0.0
        for held in datasets:
            f1s = []
            for key in sorted(k for k in pages if k[0] == held):
                preferred = next((c for c, r in pages[key].items() if r["preferred"]), None)
                base = f1_of(key, preferred)
                q0 = estimates.get((key, preferred), 0.0)
                chosen = base
                q1 = estimates.get((key, SECOND))
                # Where the scorer's text is the head of CUTER's and CUTER runs on from a
                # label, CUTER ran on past the article (`auto::ends_early`): on any page.
                ends_early = preferred == "cuter" and any(
                    r.get("scorer_ends_early") for r in pages[key].values()
                )
                asked += int(q0 < below)
                if q1 is not None and (ends_early or (q0 < below and q1 > q0 + margin)):
                    taken += 1
                    chosen = f1_of(key, SECOND)
                f1s.append(chosen)
                gain += chosen - base
                oracle_gain += max(base, f1_of(key, SECOND)) - base
            means.append(np.mean(f1s))
        captured = gain / oracle_gain if oracle_gain > 0 else float("nan")
        print(
            f"{below:5.2f}  {margin:6.2f}  " + "  ".join(f"{m:11.4f}" for m in means)
            + f"  {np.mean(means):.4f}  {asked:5d}  {taken:5d}  {captured:8.2f}"
        )
    print("oracle  " + "  ".join(
        f"{np.mean([max(f1_of(k, next((c for c, r in pages[k].items() if r['preferred']), None)), f1_of(k, SECOND)) for k in pages if k[0] == h]):11.4f}"
        for h in datasets
    ))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rows")
    parser.add_argument("--out")
    parser.add_argument("--names", help="feature names, comma-separated (for --out)")
    parser.add_argument("--margin", type=float, default=0.1)
    parser.add_argument("--sweep", help="margins to compare, comma-separated")
    parser.add_argument(
        "--second",
        help="the content scorer's second opinion: below:margin pairs, comma-separated",
    )
    args = parser.parse_args()
    pages = load(args.rows)
    datasets = sorted({d for d, _ in pages})
    if args.second:
        grid = [tuple(float(v) for v in pair.split(":")) for pair in args.second.split(",")]
        second_opinion(pages, datasets, grid)
        return
    if args.sweep:
        sweep(pages, datasets, [float(m) for m in args.sweep.split(",")])
        return
    all_q, all_f1 = [], []
    print(f"held out, margin {args.margin}:")
    for held in datasets:
        train = [k for k in pages if k[0] != held]
        test = sorted(k for k in pages if k[0] == held)
        model = fit(pages, train)
        chosen = simulate(model, pages, test, args.margin)
        q, f1, _ = report(held, chosen, test, pages)
        all_q.append(q)
        all_f1.append(f1)
    print("\ncalibration, held out, all sets:")
    calibration(np.concatenate(all_q), np.concatenate(all_f1))
    if args.out:
        if not args.names:
            sys.exit("--out needs --names")
        model = fit(pages, list(pages))
        export(model, args.names.split(","), args.out)
        print(f"\nwrote {args.out}: {len(model.trees.estimators_)} trees")


if __name__ == "__main__":
    main()
