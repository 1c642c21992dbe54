//! The claims work queue through the API: concurrent workers, expiring leases, results per
//! consumer, and the refusals of reports from workers that do not hold an article.

use std::collections::BTreeSet;
use std::time::Duration;

use anyhow::Context as _;
use serde_json::{Value, json};

use super::{App, seed};
use crate::common::TestDb;

pub async fn concurrent_claimers_never_share_an_article(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 40).await?;
    let app = std::sync::Arc::new(App::spawn(&db.store, None).await?);
    let mut workers = Vec::new();
    for _ in 0..4 {
        let app = app.clone();
        workers.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let claimed = app.claim("summarizer", 3, 600).await?;
                if claimed.is_empty() {
                    return anyhow::Ok(mine);
                }
                mine.extend(claimed.into_iter().map(|(id, _)| id));
            }
        }));
    }
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.await??);
    }
    assert_disjoint_and_complete(&all, &seeded.ids)?;
    // Another consumer has a queue of its own.
    assert_eq!(app.claim("indexer", 100, 600).await?.len(), 40);
    Ok(())
}

pub async fn consumers_claim_side_by_side(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 30).await?;
    let app = std::sync::Arc::new(App::spawn(&db.store, None).await?);
    let mut workers = Vec::new();
    for consumer in ["summarizer", "indexer", "summarizer", "indexer"] {
        let app = app.clone();
        workers.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                let claimed = app.claim(consumer, 2, 600).await?;
                if claimed.is_empty() {
                    return anyhow::Ok((consumer, mine));
                }
                mine.extend(claimed.into_iter().map(|(id, _)| id));
            }
        }));
    }
    let (mut summarized, mut indexed) = (Vec::new(), Vec::new());
    for worker in workers {
        let (consumer, ids) = worker.await??;
        if consumer == "summarizer" {
            summarized.extend(ids);
        } else {
            indexed.extend(ids);
        }
    }
    // On PostgreSQL a claim passes over rows another consumer's claim has locked at that
    // instant, so a worker can stop early; a last claim picks up what is left.
    summarized.extend(
        app.claim("summarizer", 100, 600)
            .await?
            .into_iter()
            .map(|c| c.0),
    );
    indexed.extend(
        app.claim("indexer", 100, 600)
            .await?
            .into_iter()
            .map(|c| c.0),
    );
    assert_disjoint_and_complete(&summarized, &seeded.ids)?;
    assert_disjoint_and_complete(&indexed, &seeded.ids)?;
    Ok(())
}

fn assert_disjoint_and_complete(claimed: &[i64], all: &[i64]) -> anyhow::Result<()> {
    let distinct: BTreeSet<i64> = claimed.iter().copied().collect();
    anyhow::ensure!(
        distinct.len() == claimed.len(),
        "an article was claimed twice: {claimed:?}"
    );
    anyhow::ensure!(
        distinct.into_iter().collect::<Vec<_>>() == all,
        "not every article was claimed: {claimed:?}"
    );
    Ok(())
}

pub async fn an_expired_lease_is_claimed_again(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 3).await?;
    let app = App::spawn(&db.store, None).await?;
    let first = app.claim("summarizer", 2, 1).await?;
    assert_eq!(
        first,
        vec![(seeded.ids[0], 1), (seeded.ids[1], 1)],
        "oldest first, first lease"
    );
    // While the lease runs another worker gets only the rest.
    let second = app.claim("summarizer", 10, 600).await?;
    assert_eq!(second, vec![(seeded.ids[2], 1)]);
    // Once it expires, the two articles come back (bounded wait).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    let reclaimed = loop {
        let claimed = app.claim("summarizer", 10, 600).await?;
        if !claimed.is_empty() {
            break claimed;
        }
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "the lease never expired"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(reclaimed, vec![(seeded.ids[0], 2), (seeded.ids[1], 2)]);
    let (_, body) = app
        .get_json(&format!("/claims/{}?consumer=summarizer", seeded.ids[0]))
        .await?;
    assert_eq!(body["claims"][0]["state"], "leased");
    assert_eq!(body["claims"][0]["lease"], 2);
    // The first worker's late report is refused; the holder's is taken.
    let done =
        |lease: i64| json!({"consumer": "summarizer", "lease": lease, "result": {"n": lease}});
    let path = format!("/claims/{}/done", seeded.ids[0]);
    let (status, body) = app.post_json(&path, &done(1)).await?;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"].as_str().unwrap_or("").contains("lease"));
    let (status, body) = app.post_json(&path, &done(2)).await?;
    assert_eq!(status, 200, "{body}");
    app.stop().await
}

pub async fn done_results_are_kept_per_consumer(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 2).await?;
    let app = App::spawn(&db.store, None).await?;
    let id = seeded.ids[0];
    assert_eq!(app.claim("summarizer", 1, 600).await?, vec![(id, 1)]);
    let result = json!({"summary": "Story zero, in short.", "tokens": 12});
    let (status, body) = app
        .post_json(
            &format!("/claims/{id}/done"),
            &json!({"consumer": "summarizer", "result": result}),
        )
        .await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["done"], true);

    let (status, body) = app
        .get_json(&format!("/claims/{id}?consumer=summarizer"))
        .await?;
    assert_eq!(status, 200, "{body}");
    let claim = &body["claims"][0];
    assert_eq!(claim["state"], "done");
    assert_eq!(claim["result"], result);
    assert!(claim["done_at"].is_string());
    assert_eq!(claim["lease_until"], Value::Null);

    // Never claimed again by the summarizer, even after its other article is released...
    let (_, body) = app
        .post_json(
            &format!("/claims/{}/done", seeded.ids[1]),
            &json!({"consumer": "summarizer"}),
        )
        .await?;
    assert_eq!(
        body["error"].as_str().map(|m| m.contains("not claimed")),
        Some(true)
    );
    let claimed: Vec<i64> = app
        .claim("summarizer", 10, 1)
        .await?
        .into_iter()
        .map(|c| c.0)
        .collect();
    assert_eq!(claimed, vec![seeded.ids[1]]);
    // ...but another consumer gets it, and sees both consumers' claims.
    let claimed: Vec<i64> = app
        .claim("indexer", 10, 600)
        .await?
        .into_iter()
        .map(|c| c.0)
        .collect();
    assert_eq!(claimed, seeded.ids);
    let (_, body) = app.get_json(&format!("/claims/{id}")).await?;
    let consumers: Vec<&str> = body["claims"]
        .as_array()
        .context("claims")?
        .iter()
        .filter_map(|c| c["consumer"].as_str())
        .collect();
    assert_eq!(consumers, vec!["indexer", "summarizer"]);
    app.stop().await
}

pub async fn claims_refuse_what_is_not_held(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store, 2).await?;
    let app = App::spawn(&db.store, None).await?;
    let id = seeded.ids[0];
    let (status, body) = app
        .post_json("/claims/987654/done", &json!({"consumer": "summarizer"}))
        .await?;
    assert_eq!(status, 404, "unknown article: {body}");
    let (status, body) = app
        .post_json(
            &format!("/claims/{id}/done"),
            &json!({"consumer": "summarizer"}),
        )
        .await?;
    assert_eq!(status, 409, "never claimed: {body}");
    app.claim("summarizer", 1, 600).await?;
    let (status, body) = app
        .post_json(
            &format!("/claims/{id}/done"),
            &json!({"consumer": "translator"}),
        )
        .await?;
    assert_eq!(status, 409, "held by another consumer: {body}");
    let (status, body) = app
        .post_json(
            &format!("/claims/{id}/done"),
            &json!({"consumer": "summarizer", "lease": 7}),
        )
        .await?;
    assert_eq!(status, 409, "wrong lease: {body}");
    let (status, _) = app
        .post_json(
            &format!("/claims/{id}/done"),
            &json!({"consumer": "summarizer"}),
        )
        .await?;
    assert_eq!(status, 200);
    let (status, body) = app
        .post_json(
            &format!("/claims/{id}/done"),
            &json!({"consumer": "summarizer"}),
        )
        .await?;
    assert_eq!(status, 409, "done twice: {body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or("")
            .contains("already done")
    );
    let (status, body) = app
        .post_json("/claims/abc/done", &json!({"consumer": "summarizer"}))
        .await?;
    assert_eq!(status, 400, "{body}");
    // Listing a consumer's claims needs the consumer.
    let (status, body) = app.get_json("/claims").await?;
    assert_eq!(status, 400, "{body}");
    app.stop().await
}
