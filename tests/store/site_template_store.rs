//! Site template models in the database, shared by processes: each store keeps the models it
//! parsed, and must still see what another store (a replica) learned since.

use crate::common;

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

/// Pages learned at once share writes; none may be lost, whichever store or site they are for,
/// not even the first pages of a site, whose row does not exist yet (two replicas each wrote
/// a model of their own first pages, the second overwriting the first: a race, which this
/// test lost about every other run before `CREATE_SITE_TEMPLATE`).
async fn pages_stored_at_once_are_all_learned(db: TestDb) -> anyhow::Result<()> {
    const SITES: u64 = 10;
    const PAGES_PER_SITE: u64 = 4;
    let replica = Store::connect(&db.target).await?;
    let stores = [db.store.clone(), replica.clone()];
    let removed_one = Applied {
        removed_blocks: 1,
        removed_bytes: 10,
        skipped: false,
    };
    let site_name = |n: u64| format!("site-{}.example", n % SITES);
    let tasks: Vec<_> = (0..SITES * PAGES_PER_SITE)
        .map(|n| {
            // Each site's pages alternate between the two stores.
            let store = stores[((n / SITES) % 2) as usize].clone();
            let site = site_name(n);
            tokio::spawn(async move {
                store
                    .learn_site_page(&site, page(&[7, 100 + n]), Some(removed_one))
                    .await
            })
        })
        .collect();
    for task in tasks {
        task.await??;
    }
    for n in 0..SITES {
        let site = site_name(n);
        let model = replica
            .site_template(&site)
            .await?
            .ok_or_else(|| anyhow::anyhow!("{site} has a model"))?;
        assert_eq!(model.pages, PAGES_PER_SITE, "{site}: every page learned");
        assert_eq!(
            model.blocks.get(&7).map(|seen| u64::from(seen.pages)),
            Some(PAGES_PER_SITE)
        );
    }
    for summary in db.store.site_summaries().await? {
        assert_eq!(
            (summary.pages, summary.applied_pages, summary.removed_bytes),
            (4, 4, 40),
            "{}",
            summary.site
        );
    }
    replica.close().await;
    Ok(())
}
