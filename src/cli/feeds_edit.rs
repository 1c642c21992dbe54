//! `gleaner feeds add`, `feeds remove`, `feeds import-opml` and `feeds export-opml`: editing
//! the feed list.
//!
//! Edits go through `toml_edit`, so the file keeps its comments and layout; the edited text is
//! validated as a whole configuration before it replaces the file (write to a temporary file
//! in the same directory, then rename), so a bad edit never reaches the running daemon.
//! A symbolic link is followed: the file it points to is replaced, in its own directory, and
//! keeps its permissions and owner (the file may hold the API token). Edits run one at a time
//! under an exclusive lock on `.<name>.lock` beside that file, and each reads the file again
//! once it holds the lock, so parallel edits all land.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
use std::path::Path;

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

mod discover;

use super::{CliError, Context};
use crate::config::Config;

/// A feed to append.
struct NewFeed {
    name: String,
    url: String,
    schedule: Option<String>,
    /// Written as `tags = [...]` when not empty.
    tags: Vec<String>,
}

/// How `feeds add` treats the URL it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discovery {
    /// Fetch it: a feed is added as it is; a page's announced feed is added, the user picking
    /// one on a terminal when there are several.
    Ask,
    /// As `Ask`, but the first of several announced feeds is taken (`--first`).
    First,
    /// Add the URL as given, without fetching it (`--no-discover`).
    Off,
}

/// `feeds add URL [--name] [--schedule] [--first | --no-discover]`.
pub fn add(
    config: &Config,
    url: &str,
    name: Option<&str>,
    schedule: Option<&str>,
    discovery: Discovery,
) -> Result<(), CliError> {
    // Before any discovery fetch: a name that cannot be saved is refused at once.
    if let Some(name) = name {
        crate::config::check_feed_name(name.trim())
            .map_err(|problem| CliError::Usage(format!("feed name {name:?}: {problem}")))?;
    }
    let parsed = url::Url::parse(url.trim())
        .map_err(|e| CliError::Usage(format!("`{url}` is not a valid URL ({e})")))?;
    let (parsed, title) = match discovery {
        Discovery::Off => (parsed, None),
        _ => {
            let found = discover::feed_url(config, parsed, discovery)?;
            (found.url, found.title)
        }
    };
    let url = parsed.to_string();
    let given = name.map(|name| name.trim().to_string());
    // Without --name: the feed's title (the host when it has none), made unique among the
    // names the file holds once locked, as import-opml names its feeds.
    let name = edit_feeds(&config.path, |current| {
        let name = given.unwrap_or_else(|| {
            let mut names = current.feeds.iter().map(|f| f.name.clone()).collect();
            unique_name(
                &slug(title.as_deref().unwrap_or_default(), &parsed),
                &mut names,
            )
        });
        let feed = NewFeed {
            name: name.clone(),
            url,
            schedule: schedule.map(str::to_string),
            tags: Vec::new(),
        };
        (vec![feed], name)
    })?;
    println!(
        "added feed `{name}` ({parsed}) to {}",
        config.path.display()
    );
    Ok(())
}

/// `feeds remove NAME`: deletes the feed's `[[feeds]]` table, keeping the rest of the file
/// (comments included) as it is. Its stored articles stay in the database.
pub fn remove(config: &Config, name: &str) -> Result<(), CliError> {
    let target = std::fs::canonicalize(&config.path)
        .with_context(|| format!("reading {}", config.path.display()))?;
    let _lock = lock_beside(&target)?;
    let text = std::fs::read_to_string(&target)
        .with_context(|| format!("reading {}", config.path.display()))?;
    let mut document: DocumentMut = text
        .parse()
        .map_err(|e| CliError::Usage(format!("{}: {e}", config.path.display())))?;
    let list = document
        .get_mut("feeds")
        .and_then(Item::as_array_of_tables_mut);
    let position = list.as_ref().and_then(|list| {
        list.iter()
            .position(|table| table.get("name").and_then(Item::as_str) == Some(name))
    });
    let (Some(list), Some(position)) = (list, position) else {
        return Err(CliError::Usage(format!(
            "no feed is named `{name}` in {}",
            config.path.display()
        )));
    };
    let removed = list.remove(position);
    keep_detached_comments(&mut document, &removed);
    let edited = document.to_string();
    Config::parse(&edited, &config.path, None).map_err(|e| {
        CliError::Usage(format!("nothing changed, the result would be invalid: {e}"))
    })?;
    replace_keeping_metadata(&target, &edited)?;
    println!("removed feed `{name}` from {}", config.path.display());
    Ok(())
}

/// Hands the comments above a removed table that are not its own to whatever follows it in
/// the file (the next table, or the end of the document). Its own are those after the last
/// blank line of what precedes its header: a block separated from the header by a blank line
/// documents something else (in `gleaner init`'s file, the `[[sites]]` and `[[webhooks]]`
/// sections and the per-feed keys) and stays; the blank line itself goes with the table.
fn keep_detached_comments(document: &mut DocumentMut, removed: &Table) {
    let prefix = removed
        .decor()
        .prefix()
        .and_then(|raw| raw.as_str())
        .unwrap_or_default();
    let kept = detached_part(prefix);
    if kept.is_empty() {
        return;
    }
    let after = removed.position();
    let mut next: Option<isize> = None;
    visit_tables(document.as_table_mut(), &mut |table| {
        if let (Some(at), Some(position)) = (after, table.position())
            && position > at
            && next.is_none_or(|n| position < n)
        {
            next = Some(position);
        }
    });
    let mut placed = false;
    if let Some(next) = next {
        visit_tables(document.as_table_mut(), &mut |table| {
            if !placed && table.position() == Some(next) {
                let own = table
                    .decor()
                    .prefix()
                    .and_then(|raw| raw.as_str())
                    .unwrap_or_default();
                // The kept block stays apart from the table now below it.
                let gap = if own.lines().next().is_some_and(|l| l.trim().is_empty()) {
                    ""
                } else {
                    "\n"
                };
                let joined = format!("{kept}{gap}{own}");
                table.decor_mut().set_prefix(joined);
                placed = true;
            }
        });
    }
    if !placed {
        let trailing = document.trailing().as_str().unwrap_or_default().to_string();
        document.set_trailing(format!("{kept}{trailing}"));
    }
}

/// The lines of a table's prefix before its last blank line (empty when it has none): the
/// part not attached to the table's header.
fn detached_part(prefix: &str) -> &str {
    let mut end = 0;
    let mut last_blank = None;
    for line in prefix.split_inclusive('\n') {
        if line.trim().is_empty() && line.ends_with('\n') {
            last_blank = Some(end);
        }
        end += line.len();
    }
    last_blank.map_or("", |at| &prefix[..at])
}

/// Calls `f` on every table of `table` that is written with a header (not implicit, not
/// dotted), depth first, `[[array]]` entries included.
fn visit_tables(table: &mut Table, f: &mut dyn FnMut(&mut Table)) {
    for (_, item) in table.iter_mut() {
        match item {
            Item::Table(inner) => {
                if !inner.is_implicit() && !inner.is_dotted() {
                    f(inner);
                }
                visit_tables(inner, f);
            }
            Item::ArrayOfTables(list) => {
                for inner in list.iter_mut() {
                    f(inner);
                    visit_tables(inner, f);
                }
            }
            _ => {}
        }
    }
}

/// The deepest element nesting `feeds import-opml` reads. The OPML parser recurses once per
/// level (thousands of nested outlines overflow the stack); real lists nest a folder or two.
pub const MAX_OPML_DEPTH: usize = 64;

/// `feeds import-opml FILE`: every outline with an `xmlUrl`, skipping feeds already configured.
/// The folders enclosing an outline (outlines without `xmlUrl`, named by `title` or else
/// `text`) become the feed's `tags`, outermost first.
pub fn import_opml(config: &Config, file: &Path) -> Result<(), CliError> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    check_opml_depth(&text)
        .map_err(|e| CliError::Usage(format!("{}: not imported: {e}", file.display())))?;
    let document = opml::OPML::from_str(&text)
        .map_err(|e| CliError::Usage(format!("{}: not an OPML file ({e})", file.display())))?;
    let mut outlines = Vec::new();
    collect_outlines(&document.body.outlines, &mut outlines);

    // Feeds already configured are judged on the file as it is under the lock.
    let (imported, skipped) = edit_feeds(&config.path, |current| plan_import(current, &outlines))?;
    println!(
        "imported {imported} feed{} into {} ({skipped} skipped: already configured or not http(s))",
        if imported == 1 { "" } else { "s" },
        config.path.display()
    );
    Ok(())
}

/// The feeds to add for `outlines`, given the current configuration; and how many were
/// added and skipped.
fn plan_import(current: &Config, outlines: &[FoundOutline<'_>]) -> (Vec<NewFeed>, (usize, usize)) {
    let mut names: HashSet<String> = current.feeds.iter().map(|f| f.name.clone()).collect();
    let mut urls: HashSet<String> = current.feeds.iter().map(|f| f.url.to_string()).collect();
    let mut feeds = Vec::new();
    let mut skipped = 0;
    for FoundOutline { outline, folders } in outlines {
        let Some(url) = outline
            .xml_url
            .as_deref()
            .and_then(|u| url::Url::parse(u.trim()).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
        else {
            skipped += 1;
            continue;
        };
        if !urls.insert(url.to_string()) {
            skipped += 1;
            continue;
        }
        let title = outline.title.as_deref().unwrap_or(&outline.text);
        let name = unique_name(&slug(title, &url), &mut names);
        feeds.push(NewFeed {
            name,
            url: url.to_string(),
            schedule: None,
            tags: folder_tags(folders),
        });
    }
    let added = feeds.len();
    (feeds, (added, skipped))
}

/// `feeds export-opml`: the configured feeds as OPML 2.0 on standard output.
pub fn export_opml(config: &Config) -> Result<(), CliError> {
    print!("{}", opml_document(config));
    Ok(())
}

/// The feeds as an OPML 2.0 document: an XML declaration first, then one `<outline>` per line,
/// so that the file reads and diffs well.
fn opml_document(config: &Config) -> String {
    use quick_xml::escape::escape;
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n  \
         <head>\n    <title>gleaner feeds</title>\n  </head>\n  <body>\n",
    );
    for feed in &config.feeds {
        let name = escape(feed.name.as_str());
        xml.push_str(&format!(
            "    <outline text=\"{name}\" title=\"{name}\" type=\"rss\" xmlUrl=\"{}\"/>\n",
            escape(feed.url.as_str())
        ));
    }
    xml.push_str("  </body>\n</opml>\n");
    xml
}

/// Why an OPML file is not handed to the parser.
#[derive(Debug, thiserror::Error)]
enum OpmlShapeError {
    #[error("its elements nest more than {MAX_OPML_DEPTH} levels deep")]
    TooDeep,
    #[error("not an OPML file ({0})")]
    NotXml(#[from] quick_xml::Error),
}

/// Refuses a document nested deeper than [`MAX_OPML_DEPTH`] before the recursive parser
/// sees it: one pass of a streaming reader that counts open elements, in constant stack.
fn check_opml_depth(text: &str) -> Result<(), OpmlShapeError> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut depth = 0usize;
    loop {
        match reader.read_event()? {
            Event::Start(_) => {
                depth += 1;
                if depth > MAX_OPML_DEPTH {
                    return Err(OpmlShapeError::TooDeep);
                }
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Eof => return Ok(()),
            _ => {}
        }
    }
}

/// An outline with an `xmlUrl` and the names of the folders around it, outermost first.
struct FoundOutline<'a> {
    outline: &'a opml::Outline,
    folders: Vec<&'a str>,
}

/// The outlines with an `xmlUrl`, in document order (depth first, with a stack of its own
/// rather than the call stack), each with its enclosing folders.
fn collect_outlines<'a>(outlines: &'a [opml::Outline], into: &mut Vec<FoundOutline<'a>>) {
    // One level per open outline list; a level below the top is opened by the folder
    // beside it in `folders` (None for a feed outline's own children, which are no folder).
    let mut pending = vec![outlines.iter()];
    let mut folders: Vec<Option<&'a str>> = Vec::new();
    while let Some(level) = pending.last_mut() {
        let Some(outline) = level.next() else {
            pending.pop();
            folders.pop();
            continue;
        };
        let folder = if outline.xml_url.is_some() {
            into.push(FoundOutline {
                outline,
                folders: folders.iter().flatten().copied().collect(),
            });
            None
        } else {
            Some(outline.title.as_deref().unwrap_or(&outline.text))
        };
        pending.push(outline.outlines.iter());
        folders.push(folder);
    }
}

/// A feed's tags from its folders' names, bounded and normalized as a feed's own tags are.
fn folder_tags(folders: &[&str]) -> Vec<String> {
    let mut tags = folders.iter().map(|name| name.to_string()).collect();
    crate::feed::bounds::bound_tags(&mut tags);
    tags
}

/// A feed name from a title: lowercase words joined by dashes; the host when nothing is left.
fn slug(title: &str, url: &url::Url) -> String {
    let words: Vec<String> = title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let slug = words.join("-");
    if slug.is_empty() {
        url.host_str().unwrap_or("feed").to_string()
    } else {
        slug.chars().take(60).collect()
    }
}

fn unique_name(base: &str, taken: &mut HashSet<String>) -> String {
    let mut name = base.to_string();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}-{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// Appends the `[[feeds]]` tables `plan` asks for, given the file's configuration as it is
/// once locked; validates the whole result and replaces the file. Returns what `plan` said.
fn edit_feeds<T>(
    path: &Path,
    plan: impl FnOnce(&Config) -> (Vec<NewFeed>, T),
) -> Result<T, CliError> {
    let target =
        std::fs::canonicalize(path).with_context(|| format!("reading {}", path.display()))?;
    let _lock = lock_beside(&target)?;
    let text =
        std::fs::read_to_string(&target).with_context(|| format!("reading {}", path.display()))?;
    let current = Config::parse(&text, path, None).map_err(|e| CliError::Usage(e.to_string()))?;
    let (feeds, answer) = plan(&current);
    if feeds.is_empty() {
        return Ok(answer);
    }
    let edited = append_feeds(&text, path, &feeds)?;
    // The same checks as loading: a duplicate name, a bad URL or cron is refused here.
    Config::parse(&edited, path, None).map_err(|e| {
        CliError::Usage(format!("nothing changed, the result would be invalid: {e}"))
    })?;
    replace_keeping_metadata(&target, &edited)?;
    Ok(answer)
}

/// `text` with `feeds` appended as `[[feeds]]` tables.
fn append_feeds(text: &str, path: &Path, feeds: &[NewFeed]) -> Result<String, CliError> {
    let mut document: DocumentMut = text
        .parse()
        .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
    if document.get("feeds").is_none() {
        document.insert("feeds", Item::ArrayOfTables(ArrayOfTables::new()));
    }
    let Some(list) = document
        .get_mut("feeds")
        .and_then(Item::as_array_of_tables_mut)
    else {
        return Err(CliError::Usage(format!(
            "{}: `feeds` must be written as [[feeds]] tables to be edited",
            path.display()
        )));
    };
    for feed in feeds {
        let mut table = Table::new();
        table.insert("name", value(feed.name.as_str()));
        table.insert("url", value(feed.url.as_str()));
        if let Some(schedule) = &feed.schedule {
            table.insert("schedule", value(schedule.as_str()));
        }
        if !feed.tags.is_empty() {
            let tags: toml_edit::Array = feed.tags.iter().map(String::as_str).collect();
            table.insert("tags", value(tags));
        }
        list.push(table);
    }
    Ok(document.to_string())
}

/// Takes the exclusive edit lock of `target` (held until the file is dropped).
fn lock_beside(target: &Path) -> Result<File, CliError> {
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let lock_path = target.with_file_name(format!(".{name}.lock"));
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .with_context(|| format!("opening the lock {}", lock_path.display()))?;
    lock.lock()
        .with_context(|| format!("locking {}", lock_path.display()))?;
    Ok(lock)
}

/// Replaces `target` by `text` atomically (a temporary file in its directory, written with
/// the target's permissions and owner, synced, then renamed over it).
fn replace_keeping_metadata(target: &Path, text: &str) -> Result<(), CliError> {
    let metadata =
        std::fs::metadata(target).with_context(|| format!("reading {}", target.display()))?;
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let temporary = target.with_file_name(format!(".{name}.tmp"));
    let written = (|| {
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .mode(0o600)
            .open(&temporary)?;
        file.set_permissions(metadata.permissions())?;
        // Only root may give a file away: anyone else keeps a file they own (the mode,
        // which guards the token, is kept either way).
        let _ = std::os::unix::fs::fchown(&file, Some(metadata.uid()), Some(metadata.gid()));
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    written.with_context(|| format!("writing {}", temporary.display()))?;
    std::fs::rename(&temporary, target)
        .with_context(|| format!("replacing {}", target.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_control_characters_is_refused_and_the_file_kept() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("config.toml");
        let text = "[[feeds]]\nname = \"one\"\nurl = \"https://a.example/feed\"\n";
        std::fs::write(&path, text).expect("written");
        let config = Config::parse(text, &path, None).expect("valid");
        for name in ["two\nlines", "bell\u{7}", "tab\there"] {
            let refused = add(
                &config,
                "https://b.example/feed",
                Some(name),
                None,
                Discovery::Off,
            );
            assert!(
                matches!(&refused, Err(CliError::Usage(message)) if message.contains("control characters")),
                "{name:?}: {refused:?}"
            );
        }
        assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
    }

    #[test]
    fn imported_names_keep_no_control_characters() {
        let url = url::Url::parse("https://c.example/feed").expect("URL");
        assert_eq!(
            slug("Night\nnews \u{7}\u{202e}daily", &url),
            "night-news-daily"
        );
        assert_eq!(slug("\u{1b}[2J", &url), "2j");
        assert_eq!(slug("\t\u{7}", &url), "c.example");
    }
}
