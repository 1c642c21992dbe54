//! An episode's transcript (Podcasting 2.0 `podcast:transcript`) as plain text: the cues'
//! words joined into paragraphs, timestamps, cue numbers and markup dropped.
//!
//! Four formats are read, told apart by the media type the feed or the server names, else by
//! the file's first bytes:
//!
//! * WebVTT (`text/vtt`): a `WEBVTT` header, cues of a timing line (`00:01.000 --> 00:04.000`)
//!   and text, `<v Speaker>` voice spans, `NOTE` and `STYLE` blocks;
//! * SubRip (`application/x-subrip`, `application/srt`): numbered cues of a timing line
//!   (`00:00:01,000 --> 00:00:04,000`) and text;
//! * the Podcasting 2.0 JSON form (`application/json`): `segments` of `speaker`, `startTime`,
//!   `endTime` and `body`;
//! * HTML (`text/html`) and plain text: the document's text, lines that are only a
//!   timestamp left out.
//!
//! A paragraph ends where the speaker changes or the speech pauses for [`PAUSE_SECONDS`]:
//! cues are cut for the screen, not by sentence, so each cue alone would be a paragraph of
//! half a sentence.

use serde::Deserialize;

/// A silence between two cues this long or longer ends a paragraph.
pub const PAUSE_SECONDS: f64 = 2.0;

/// Why a transcript has no text.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TranscriptError {
    #[error("the transcript is not valid UTF-8 text")]
    NotText,
    #[error("the JSON transcript cannot be read: {0}")]
    Json(String),
    #[error("the transcript holds no words")]
    Empty,
}

/// The formats a transcript comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    WebVtt,
    SubRip,
    Json,
    Html,
    Plain,
}

impl Format {
    /// The format a media type names (parameters and case ignored); `None` for one that names
    /// none of the four.
    pub fn of_media_type(media_type: &str) -> Option<Format> {
        let essence = media_type.split(';').next()?.trim().to_ascii_lowercase();
        match essence.as_str() {
            "text/vtt" => Some(Format::WebVtt),
            "application/x-subrip" | "application/srt" | "text/srt" | "application/x-srt" => {
                Some(Format::SubRip)
            }
            "application/json" => Some(Format::Json),
            "text/html" | "application/xhtml+xml" => Some(Format::Html),
            "text/plain" => Some(Format::Plain),
            _ => None,
        }
    }

    /// The format of a text by its first characters.
    fn sniffed(text: &str) -> Format {
        let start = text.trim_start_matches('\u{feff}').trim_start();
        if start.starts_with("WEBVTT") {
            Format::WebVtt
        } else if start.starts_with('{') {
            Format::Json
        } else if start.starts_with('<') {
            Format::Html
        } else if start.lines().take(3).any(|line| line.contains("-->")) {
            Format::SubRip
        } else {
            Format::Plain
        }
    }

    /// How well the format keeps a transcript's words apart from its timing: the feed's
    /// transcript of the highest rank is fetched.
    pub fn rank(self) -> u8 {
        match self {
            Format::Json => 5,
            Format::WebVtt => 4,
            Format::SubRip => 3,
            Format::Html => 2,
            Format::Plain => 1,
        }
    }
}

/// One cue: who speaks (when the format says), when, and the words.
#[derive(Debug, Clone, PartialEq)]
struct Cue {
    speaker: Option<String>,
    start: Option<f64>,
    end: Option<f64>,
    text: String,
}

/// The transcript's text, paragraphs separated by one blank line. `format` is the format the
/// feed or the server declared; without one (or with one the bytes contradict, such as HTML
/// served for a `.vtt`) it is read from the bytes.
pub fn text_of(bytes: &[u8], format: Option<Format>) -> Result<String, TranscriptError> {
    let text = std::str::from_utf8(bytes).map_err(|_| TranscriptError::NotText)?;
    let text = text.trim_start_matches('\u{feff}');
    let sniffed = Format::sniffed(text);
    // A server's error page or a mislabelled file is read as what it is.
    let format = match format {
        Some(Format::WebVtt) if sniffed != Format::WebVtt => sniffed,
        Some(Format::Json) if sniffed != Format::Json => sniffed,
        Some(declared) => declared,
        None => sniffed,
    };
    let paragraphs = match format {
        Format::WebVtt | Format::SubRip => paragraphs(&timed_cues(text)),
        Format::Json => paragraphs(&json_cues(text)?),
        Format::Html => untimed_lines(&html_lines(text)),
        Format::Plain => untimed_lines(text),
    };
    if paragraphs.trim().is_empty() {
        return Err(TranscriptError::Empty);
    }
    Ok(paragraphs)
}

/// The cues of a WebVTT or SubRip file: each block whose timing line holds `-->`, its text the
/// lines after it. Headers, `NOTE`, `STYLE` and `REGION` blocks have no timing line.
fn timed_cues(text: &str) -> Vec<Cue> {
    let mut cues = Vec::new();
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    for block in normalized.split("\n\n") {
        let mut lines = block.lines().skip_while(|line| !line.contains("-->"));
        let Some(timing) = lines.next() else {
            continue;
        };
        let (start, end) = match timing.split_once("-->") {
            Some((start, end)) => (
                timestamp_seconds(start),
                timestamp_seconds(end.split_whitespace().next().unwrap_or("")),
            ),
            None => (None, None),
        };
        let raw: Vec<&str> = lines.collect();
        let (speaker, text) = voiced_text(&raw.join(" "));
        if !text.is_empty() {
            cues.push(Cue {
                speaker,
                start,
                end,
                text,
            });
        }
    }
    cues
}

/// A cue's words without markup, and the speaker its first `<v Name>` span names.
fn voiced_text(raw: &str) -> (Option<String>, String) {
    let mut speaker = None;
    let mut text = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            text.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let tag = &rest[open + 1..open + close];
        if speaker.is_none()
            && let Some(name) = tag.strip_prefix('v').filter(|n| n.starts_with([' ', '.']))
        {
            // `<v.loud Ann>`: classes before the name.
            let name = name.split_once(' ').map_or("", |(_, name)| name).trim();
            if !name.is_empty() {
                speaker = Some(name.to_string());
            }
        }
        rest = &rest[open + close + 1..];
    }
    text.push_str(rest);
    let text = decode_entities(&text);
    (
        speaker,
        text.split_whitespace().collect::<Vec<_>>().join(" "),
    )
}

/// The few character references WebVTT defines.
fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", " ")
        .replace("&lrm;", "")
        .replace("&rlm;", "")
        .replace("&amp;", "&")
}

/// Seconds of a WebVTT (`01:02.500`, `1:01:02.500`) or SubRip (`00:01:02,500`) timestamp.
fn timestamp_seconds(stamp: &str) -> Option<f64> {
    let stamp = stamp.trim().replace(',', ".");
    let mut seconds = 0.0;
    for part in stamp.split(':') {
        seconds = seconds * 60.0 + part.parse::<f64>().ok()?;
    }
    Some(seconds)
}

#[derive(Deserialize)]
struct JsonTranscript {
    segments: Vec<JsonSegment>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonSegment {
    speaker: Option<String>,
    start_time: Option<f64>,
    end_time: Option<f64>,
    #[serde(default)]
    body: String,
}

/// The segments of a Podcasting 2.0 JSON transcript.
fn json_cues(text: &str) -> Result<Vec<Cue>, TranscriptError> {
    let transcript: JsonTranscript =
        serde_json::from_str(text).map_err(|error| TranscriptError::Json(error.to_string()))?;
    Ok(transcript
        .segments
        .into_iter()
        .map(|segment| Cue {
            speaker: segment.speaker.filter(|s| !s.trim().is_empty()),
            start: segment.start_time,
            end: segment.end_time,
            text: segment
                .body
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        })
        .filter(|cue| !cue.text.is_empty())
        .collect())
}

/// Cues joined into paragraphs: a new one where the speaker changes (its name in front,
/// `Ann: …`) or the speech pauses for [`PAUSE_SECONDS`].
fn paragraphs(cues: &[Cue]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut speaker: Option<&str> = None;
    let mut last_end: Option<f64> = None;
    for cue in cues {
        let new_speaker = cue.speaker.is_some() && cue.speaker.as_deref() != speaker;
        let paused = matches!((last_end, cue.start), (Some(end), Some(start)) if start - end >= PAUSE_SECONDS);
        if out.is_empty() || new_speaker || paused {
            out.push(match (&cue.speaker, new_speaker) {
                (Some(name), true) => format!("{name}: {}", cue.text),
                _ => cue.text.clone(),
            });
        } else if let Some(paragraph) = out.last_mut() {
            paragraph.push(' ');
            paragraph.push_str(&cue.text);
        }
        if cue.speaker.is_some() {
            speaker = cue.speaker.as_deref();
        }
        last_end = cue.end.or(cue.start);
    }
    out.join("\n\n")
}

/// An HTML transcript's text, one line per block.
fn html_lines(html: &str) -> String {
    super::text_lines(html)
}

/// Plain lines as paragraphs, lines that are only a timestamp (`00:01:02`, `[12:30]`) left out;
/// a blank line, or a line of its own in a text without blank lines, ends a paragraph.
fn untimed_lines(text: &str) -> String {
    let is_timestamp = |line: &str| {
        let bare = line.trim().trim_matches(['[', ']', '(', ')']);
        !bare.is_empty()
            && bare
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, ':' | '.' | ','))
            && bare.contains(':')
    };
    text.replace("\r\n", "\n")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !is_timestamp(line))
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webvtt_cues_become_paragraphs_by_speaker_and_pause() {
        let vtt = "WEBVTT\n\nNOTE made by hand\n\n1\n00:00:00.000 --> 00:00:02.000\n\
                   <v Ann>Welcome back to the shop.\n\n00:00:02.100 --> 00:00:04.000\n\
                   <v Ann>Today: wheels &amp; spokes.\n\n00:00:04.000 --> 00:00:06.000\n\
                   <v.host Bo>Thanks, <i>Ann</i>.\n\n00:00:09.000 --> 00:00:10.000 align:start\n\
                   <v Bo>After a pause.\n";
        assert_eq!(
            text_of(vtt.as_bytes(), Some(Format::WebVtt)),
            Ok("Ann: Welcome back to the shop. Today: wheels & spokes.\n\n\
                Bo: Thanks, Ann.\n\nAfter a pause."
                .to_string())
        );
    }

    #[test]
    fn subrip_numbers_and_timings_are_dropped() {
        let srt = "1\r\n00:00:01,000 --> 00:00:02,500\r\nTrue the wheel\r\nslowly.\r\n\r\n\
                   2\r\n00:00:02,600 --> 00:00:04,000\r\nThen check the hop.\r\n";
        assert_eq!(
            text_of(srt.as_bytes(), None),
            Ok("True the wheel slowly. Then check the hop.".to_string())
        );
    }

    #[test]
    fn json_segments_keep_their_speakers() {
        let json = r#"{"version":"1.0.0","segments":[
            {"speaker":"Ann","startTime":0.0,"endTime":1.5,"body":"Spokes first."},
            {"speaker":"Ann","startTime":1.5,"endTime":3.0,"body":"Then the rim."},
            {"speaker":"Bo","startTime":3.1,"endTime":4.0,"body":"Agreed."}]}"#;
        assert_eq!(
            text_of(json.as_bytes(), Some(Format::Json)),
            Ok("Ann: Spokes first. Then the rim.\n\nBo: Agreed.".to_string())
        );
    }

    #[test]
    fn html_keeps_its_blocks_and_drops_timestamp_lines() {
        let html = "<html><body><p><cite>Ann:</cite></p><p><time>00:00:01</time></p>\
                    <p>Spokes first, then the rim.</p><p>[00:01:02]</p><p>Bo: Agreed.</p>\
                    </body></html>";
        assert_eq!(
            text_of(html.as_bytes(), Some(Format::Html)),
            Ok("Ann:\n\nSpokes first, then the rim.\n\nBo: Agreed.".to_string())
        );
    }

    #[test]
    fn an_error_page_served_for_a_vtt_is_read_as_html_and_an_empty_file_is_an_error() {
        let page = "<html><body><p>Transcript coming soon.</p></body></html>";
        assert_eq!(
            text_of(page.as_bytes(), Some(Format::WebVtt)),
            Ok("Transcript coming soon.".to_string())
        );
        assert_eq!(
            text_of(b"WEBVTT\n\n", Some(Format::WebVtt)),
            Err(TranscriptError::Empty)
        );
        assert_eq!(
            text_of(&[0xff, 0xfe, 0x00], None),
            Err(TranscriptError::NotText)
        );
    }

    #[test]
    fn media_types_name_their_formats() {
        assert_eq!(
            Format::of_media_type("text/vtt; charset=utf-8"),
            Some(Format::WebVtt)
        );
        assert_eq!(
            Format::of_media_type("application/x-subrip"),
            Some(Format::SubRip)
        );
        assert_eq!(
            Format::of_media_type("Application/JSON"),
            Some(Format::Json)
        );
        assert_eq!(Format::of_media_type("audio/mpeg"), None);
    }
}
