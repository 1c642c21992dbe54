//! `deploy/`: the compose file parses, names PostgreSQL and the daemon, publishes the API,
//! keeps data on named volumes and takes the token from the environment; the configuration
//! it renders is one gleaner accepts, listening on every interface of the container; the
//! Containerfile exposes that port.

use std::path::Path;

use anyhow::Context as _;
use yaml_rust2::{Yaml, YamlLoader};

const COMPOSE: &str = include_str!("../../deploy/compose.yaml");
const CONTAINERFILE: &str = include_str!("../../deploy/Containerfile");

/// `text` with every `${NAME…}` replaced as compose would with `values`; a name without a
/// value is an error (the file marks each one required with `:?`).
fn interpolate(text: &str, values: &[(&str, &str)]) -> anyhow::Result<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').context("an unclosed ${")? + start;
        let inside = &rest[start + 2..end];
        let name = inside.split([':', '-', '?']).next().unwrap_or_default();
        anyhow::ensure!(inside.contains(":?"), "{name} is not marked required");
        let value = values
            .iter()
            .find(|(n, _)| *n == name)
            .with_context(|| format!("an unexpected variable {name}"))?;
        out.push_str(value.1);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn strings(list: &Yaml) -> Vec<String> {
    list.as_vec()
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn compose_runs_postgres_and_the_daemon_with_the_api_published() -> anyhow::Result<()> {
    let documents = YamlLoader::load_from_str(COMPOSE)?;
    let compose = documents.first().context("a YAML document")?;
    let services = &compose["services"];
    let postgres = &services["postgres"];
    let gleaner = &services["gleaner"];
    assert!(
        postgres["image"]
            .as_str()
            .is_some_and(|i| i.contains("postgres")),
        "{postgres:?}"
    );
    assert_eq!(
        gleaner["build"]["dockerfile"].as_str(),
        Some("deploy/Containerfile")
    );
    assert!(!gleaner["depends_on"]["postgres"].is_badvalue());

    // The API: published from the container's 8080.
    let ports = strings(&gleaner["ports"]);
    assert!(ports.iter().any(|p| p.ends_with(":8080:8080")), "{ports:?}");

    // Data on named volumes declared at the top level.
    for (service, volume) in [(postgres, "postgres-data"), (gleaner, "gleaner-data")] {
        let mounts = strings(&service["volumes"]);
        assert!(
            mounts.iter().any(|m| m.starts_with(&format!("{volume}:"))),
            "{mounts:?}"
        );
        assert!(
            !compose["volumes"][volume].is_badvalue(),
            "{volume} is declared"
        );
    }

    // The configuration, rendered from the environment, is mounted where the image reads it.
    let values = [
        ("GLEANER_API_TOKEN", "token-from-the-environment"),
        ("POSTGRES_PASSWORD", "secret42"),
    ];
    let mount = &gleaner["configs"][0];
    assert_eq!(mount["source"].as_str(), Some("gleaner-config"));
    let target = mount["target"].as_str().context("a target")?;
    assert!(
        CONTAINERFILE.contains(&format!("\"--config\", \"{target}\"")),
        "the image reads {target}"
    );
    let content = compose["configs"]["gleaner-config"]["content"]
        .as_str()
        .context("the configuration's content")?;
    let database = gleaner["environment"]["GLEANER_DATABASE_URL"]
        .as_str()
        .context("GLEANER_DATABASE_URL")?;
    let database = interpolate(database, &values)?;
    assert_eq!(
        database,
        "postgres://gleaner:secret42@postgres:5432/gleaner"
    );
    assert_eq!(
        interpolate(
            postgres["environment"]["POSTGRES_PASSWORD"]
                .as_str()
                .context("the password")?,
            &values
        )?,
        "secret42"
    );
    let config = gleaner::config::Config::parse(
        &interpolate(content, &values)?,
        Path::new(target),
        Some(&database),
    )?;
    let api = config.api.context("an [api] section")?;
    assert_eq!(api.listen.to_string(), "0.0.0.0:8080");
    assert_eq!(api.token.as_deref(), Some("token-from-the-environment"));
    assert!(
        !content.contains("token-from"),
        "the token is not in the file"
    );
    Ok(())
}

#[test]
fn the_containerfile_exposes_the_api_port() {
    assert!(
        CONTAINERFILE
            .lines()
            .any(|line| line.trim() == "EXPOSE 8080"),
        "{CONTAINERFILE}"
    );
}
