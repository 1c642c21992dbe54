//! Site template models in the database, shared by processes: each store keeps the models it
//! parsed, and must still see what another store (a replica) learned since.

mod common;

use common::TestDb;
use gleaner::extract::template::{Applied, PageObservation};
use gleaner::store::Store;

on_both_databases!(
    two_stores_on_one_database_learn_from_each_others_pages,
    pages_stored_at_once_are_all_learned,
);

fn page(fingerprints: &[u64]) -> PageObservation {
    PageObservation {
        fingerprints: fingerprints.to_vec(),
    }
}

async fn two_stores_on_one_database_learn_from_each_others_pages(db: TestDb) -> anyhow::Result<()> {
    let first = db.store.clone();
    let second = Store::connect(&db.target).await?;
    let site = "example.org";
    assert!(first.site_template(site).await?.is_none());

    first.learn_site_page(site, page(&[1, 2, 3]), None).await?;
    // The first store now holds the model parsed; the second learns a page behind its back.
    let seen = first.site_template(site).await?.map(|m| m.pages);
    assert_eq!(seen, Some(1));
    second.learn_site_page(site, page(&[1, 2, 4]), None).await?;

    let model = first
        .site_template(site)
        .await?
        .ok_or_else(|| anyhow::anyhow!("the site has a model"))?;
    assert_eq!(model.pages, 2, "the first store sees the second's page");
    assert_eq!(model.blocks.get(&1).map(|seen| seen.pages), Some(2));
    assert!(model.blocks.contains_key(&4));

    // Learning through the first store starts from the second's model, not from its own copy.
    first.learn_site_page(site, page(&[1, 5]), None).await?;
    let model = second
        .site_template(site)
        .await?
        .ok_or_else(|| anyhow::anyhow!("the site has a model"))?;
    assert_eq!(model.pages, 3);
    assert_eq!(model.blocks.get(&1).map(|seen| seen.pages), Some(3));
    assert!(model.blocks.contains_key(&4) && model.blocks.contains_key(&5));
    second.close().await;
    Ok(())
}

/// Pages learned at once share writes; none may be lost, whichever store or site they are for.
async fn pages_stored_at_once_are_all_learned(db: TestDb) -> anyhow::Result<()> {
    let replica = Store::connect(&db.target).await?;
    let stores = [db.store.clone(), replica.clone()];
    let removed_one = Applied {
        removed_blocks: 1,
        removed_bytes: 10,
        skipped: false,
    };
    let tasks: Vec<_> = (0..40u64)
        .map(|n| {
            let store = stores[(n % 2) as usize].clone();
            let site = if n % 4 < 2 { "a.example" } else { "b.example" };
            tokio::spawn(async move {
                store
                    .learn_site_page(site, page(&[7, 100 + n]), Some(removed_one))
                    .await
            })
        })
        .collect();
    for task in tasks {
        task.await??;
    }
    for site in ["a.example", "b.example"] {
        let model = replica
            .site_template(site)
            .await?
            .ok_or_else(|| anyhow::anyhow!("{site} has a model"))?;
        assert_eq!(model.pages, 20, "{site}: every page learned");
        assert_eq!(model.blocks.get(&7).map(|seen| seen.pages), Some(20));
    }
    let summaries = db.store.site_summaries().await?;
    let counts: Vec<(&str, i64, i64, i64)> = summaries
        .iter()
        .map(|s| (s.site.as_str(), s.pages, s.applied_pages, s.removed_bytes))
        .collect();
    assert_eq!(
        counts,
        [("a.example", 20, 20, 200), ("b.example", 20, 20, 200)]
    );
    replica.close().await;
    Ok(())
}
