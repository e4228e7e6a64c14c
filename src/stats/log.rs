//! `statistics_log`: periodic dumps of the statistics to files in the home (the reference's
//! `conn_stat.c`).
//!
//! * [`StatsLogConfig`]: the `statistics_log=(…)` settings of `wiredtiger_open` and
//!   `WT_CONNECTION::reconfigure` (which cannot change `path`, and keeps what it does not set).
//! * [`format_round`]: one round of dumps as the reference writes it: text, one line per
//!   statistic (`"<timestamp> <value> <source> <description>"`), or JSON, one object per round.
//! * [`StatsLogger`]: the logging thread. It sleeps on a condition variable, so stopping it
//!   is prompt, and it asks its owner for [`Dump`]s each round: it holds no engine state, which
//!   keeps it from touching any session's counters itself.
//!
//! The file name is `<path>/WiredTigerStat.%d.%H` in the home, expanded with `strftime` each
//! round (so a new file starts every hour) and appended to.

use std::ffi::{CString, OsString};
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use parking_lot::{Condvar, Mutex};

use super::family::Family;
use super::view::Snapshot;
use crate::config::{list_elements, validate, Config, Method};
use crate::error::{Error, Kind, Result};

/// The version the JSON records carry (the reference's `WIREDTIGER_VERSION_STRING`; the same
/// text `wiredtiger_version` returns).
pub const VERSION_STRING: &str = "WiredTiger 11.3.1: (November 13, 2024)";
/// The log file name inside `path`, expanded with `strftime`.
pub const FILE_NAME: &str = "WiredTigerStat.%d.%H";
/// The default `timestamp`.
pub const TIMESTAMP_DEFAULT: &str = "%b %d %H:%M:%S";
/// The timestamp used instead of the default for JSON output (MongoDB's format).
pub const TIMESTAMP_JSON_DEFAULT: &str = "%Y-%m-%dT%H:%M:%S.000Z";
/// `sources` holding something other than `file:` or `lsm:` URIs.
pub const SOURCES_ONLY_FILE_OR_LSM: &str =
    "statistics_log sources configuration only supports objects of type \"file\" or \"lsm\"";

/// The `statistics_log` settings as configured (defaults, then `wiredtiger_open`, then each
/// `reconfigure`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatsLogConfig {
    /// Seconds between dumps; 0: no logging thread.
    pub wait: u64,
    /// `json` as configured; see [`json_output`](Self::json_output).
    pub json: bool,
    /// Write one more dump when the connection closes.
    pub on_close: bool,
    /// The directory of the log files, relative to the home unless absolute; it must exist.
    pub path: String,
    /// URI prefixes (`file:`, `lsm:`) of the data sources dumped after the connection.
    pub sources: Vec<String>,
    /// `timestamp` as configured; see [`timestamp_format`](Self::timestamp_format).
    pub timestamp: String,
}

impl Default for StatsLogConfig {
    /// The key table's defaults.
    fn default() -> Self {
        let d = validate(Method::WiredtigerOpen, None, None).expect("no configuration is valid");
        StatsLogConfig {
            wait: d.int("statistics_log.wait") as u64,
            json: d.bool("statistics_log.json"),
            on_close: d.bool("statistics_log.on_close"),
            path: d.str("statistics_log.path").to_string(),
            sources: d.list("statistics_log.sources").into_iter().map(String::from).collect(),
            timestamp: d.str("statistics_log.timestamp").to_string(),
        }
    }
}

impl StatsLogConfig {
    /// The settings after a validated `wiredtiger_open` (`previous` = `None`) or
    /// `WT_CONNECTION::reconfigure` (`previous` = the current settings, which stand for the
    /// keys the string does not set; `path` cannot be reconfigured). `EINVAL`
    /// [`SOURCES_ONLY_FILE_OR_LSM`] for other sources.
    pub fn from_config(config: &Config<'_>, previous: Option<&StatsLogConfig>) -> Result<StatsLogConfig> {
        let mut s = previous.cloned().unwrap_or_default();
        // `get`, not the typed look-ups: `reconfigure`'s key table has no `path`, and keys not
        // given must keep the previous values, not the defaults.
        let get = |key: &str| config.get(&format!("statistics_log.{key}"));
        if let Some(v) = get("wait") {
            s.wait = v.num.max(0) as u64;
        }
        if let Some(v) = get("json") {
            s.json = v.num != 0;
        }
        if let Some(v) = get("on_close") {
            s.on_close = v.num != 0;
        }
        if let Some(v) = get("path") {
            s.path = v.text.to_string();
        }
        if let Some(v) = get("sources") {
            s.sources = list_elements(v.text).into_iter().map(String::from).collect();
        }
        if let Some(v) = get("timestamp") {
            s.timestamp = v.text.to_string();
        }
        if !s.sources.iter().all(|u| u.starts_with("file:") || u.starts_with("lsm:")) {
            return Err(Error::invalid(SOURCES_ONLY_FILE_OR_LSM));
        }
        Ok(s)
    }

    /// Whether a logging thread runs (`wait` > 0).
    pub fn runs(&self) -> bool {
        self.wait > 0
    }

    /// Whether the output is JSON: `json` counts only when statistics are enabled at the
    /// time of configuration (the reference's rule, so that `json` cannot turn them on).
    pub fn json_output(&self, statistics_enabled: bool) -> bool {
        self.json && statistics_enabled
    }

    /// The `strftime` format of the records' timestamps: JSON output replaces the default
    /// (only the default) with [`TIMESTAMP_JSON_DEFAULT`].
    pub fn timestamp_format(&self, json_output: bool) -> &str {
        if json_output && self.timestamp == TIMESTAMP_DEFAULT {
            TIMESTAMP_JSON_DEFAULT
        } else {
            &self.timestamp
        }
    }

    /// The log file path before `strftime` expansion: `<home>/<path>/WiredTigerStat.%d.%H`,
    /// or `<path>/…` for an absolute `path`.
    pub fn file_pattern(&self, home: &Path) -> PathBuf {
        home.join(format!("{}/{FILE_NAME}", self.path))
    }

    /// Whether the data source `uri` (a `file:` or `lsm:` name) is one to dump: `sources`
    /// are prefixes, so `file:` selects every file.
    pub fn matches_source(&self, uri: &str) -> bool {
        self.sources.iter().any(|p| uri.starts_with(p.as_str()))
    }
}

/// One statistics cursor's worth of a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dump {
    /// The source name written with each record: for the connection dump, its home as
    /// `wiredtiger_open` took it (the path given, else `WIREDTIGER_HOME`, else `"."`); for a
    /// data source, its URI (the reference's are `file:NAME.wt` and `lsm:NAME`).
    pub name: String,
    /// [`Family::Connection`] or [`Family::DataSource`].
    pub family: Family,
    /// The values, sorted by id.
    pub stats: Snapshot,
}

impl Dump {
    fn entries(&self) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        self.stats.iter().filter_map(|&(id, v)| Some((self.family.description(id)?, v)))
    }
}

/// Formats one round: the connection dump first, then the data sources, as the owner lists
/// them. `stamp` is the expanded timestamp.
///
/// Text: `"<stamp> <value> <name> <description>\n"` per statistic. JSON, one line per round:
/// `{"version":"…","localTime":"<stamp>","wiredTiger":{"<group>":{"<rest>":value,…},…},
/// "wiredTigerTables":{"<name>":{…},…}}` where a description `"cursor: open cursor count"`
/// is group `cursor`, name `open cursor count`.
pub fn format_round(dumps: &[Dump], stamp: &str, json: bool) -> String {
    let mut out = String::new();
    if !json {
        for dump in dumps {
            for (desc, v) in dump.entries() {
                let _ = writeln!(out, "{stamp} {v} {} {desc}", dump.name);
            }
        }
        return out;
    }
    let _ = write!(out, "{{\"version\":\"{VERSION_STRING}\",\"localTime\":\"{}\"", Json(stamp));
    let mut tables = false;
    for dump in dumps {
        if dump.family == Family::Connection {
            out.push_str(",\"wiredTiger\":{");
        } else {
            out.push_str(if tables { "," } else { ",\"wiredTigerTables\":{" });
            tables = true;
            let _ = write!(out, "\"{}\":{{", Json(&dump.name));
        }
        let mut group: Option<&str> = None;
        for (desc, v) in dump.entries() {
            let (prefix, rest) = desc.split_once(':').unwrap_or(("", desc));
            let name = rest.get(1..).unwrap_or("");
            if group == Some(prefix) {
                out.push(',');
            } else {
                let close = if group.is_some() { "}," } else { "" };
                let _ = write!(out, "{close}\"{}\":{{", Json(prefix));
                group = Some(prefix);
            }
            let _ = write!(out, "\"{}\":{v}", Json(name));
        }
        // Close the last group (if any) and the dump's object.
        out.push_str(if group.is_some() { "}}" } else { "}" });
    }
    if tables {
        out.push('}');
    }
    out.push_str("}\n");
    out
}

/// A string as JSON string content. The reference writes names unescaped; escaping changes
/// nothing for the names it writes, and keeps odd ones (a home with a quote) valid.
struct Json<'a>(&'a str);

impl std::fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for c in self.0.chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                c if (c as u32) < 0x20 => write!(f, "\\u{:04x}", c as u32)?,
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

/// `strftime` of `format` for `tm` (the C library's, for the reference's exact expansions).
fn strftime(format: &CString, tm: &libc::tm) -> Vec<u8> {
    if format.as_bytes().is_empty() {
        return Vec::new();
    }
    let mut cap = format.as_bytes().len() + 128;
    loop {
        let mut buf = vec![0u8; cap];
        // SAFETY: `buf` is writable for `cap` bytes, `format` is NUL-terminated and `tm` is a
        // valid broken-down time; strftime writes at most `cap` bytes including the NUL.
        let n = unsafe { libc::strftime(buf.as_mut_ptr().cast(), cap, format.as_ptr(), tm) };
        // 0 means "did not fit", or an empty expansion: stop growing at a size no sane
        // format needs.
        if n > 0 || cap >= 64 * 1024 {
            buf.truncate(n);
            return buf;
        }
        cap *= 4;
    }
}

/// The local broken-down time of `t`.
fn local_time(t: SystemTime) -> libc::tm {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as libc::time_t;
    // SAFETY: `tm` is plain old data, for which all-zero bytes are a valid value.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call; localtime_r is the thread-safe variant.
    unsafe { libc::localtime_r(&secs, &mut tm) };
    tm
}

fn c_string(bytes: &[u8], what: &str) -> Result<CString> {
    CString::new(bytes).map_err(|_| Error::invalid(format!("statistics_log {what} contains a NUL byte")))
}

/// Appends rounds to the current log file, switching files when the expanded name changes.
struct LogWriter {
    pattern: CString,
    timestamp: CString,
    json: bool,
    current: Option<(Vec<u8>, File)>,
}

impl LogWriter {
    fn new(config: &StatsLogConfig, home: &Path, statistics_enabled: bool) -> Result<LogWriter> {
        let json = config.json_output(statistics_enabled);
        Ok(LogWriter {
            pattern: c_string(config.file_pattern(home).as_os_str().as_bytes(), "path")?,
            timestamp: c_string(config.timestamp_format(json).as_bytes(), "timestamp")?,
            json,
            current: None,
        })
    }

    fn write_round(&mut self, dumps: &[Dump], now: SystemTime) -> io::Result<()> {
        let tm = local_time(now);
        let path = strftime(&self.pattern, &tm);
        let file = match &mut self.current {
            Some((p, file)) if *p == path => file,
            current => {
                let name = PathBuf::from(OsString::from_vec(path.clone()));
                let file = OpenOptions::new().create(true).append(true).open(&name)?;
                &mut current.insert((path, file)).1
            }
        };
        let stamp = String::from_utf8_lossy(&strftime(&self.timestamp, &tm)).into_owned();
        file.write_all(format_round(dumps, &stamp, self.json).as_bytes())
    }
}

/// What the owner provides each round: the dumps to write (the connection's first, then the
/// matching data sources), or `None` when statistics are off (nothing is written). It runs on
/// the logging thread; with `statistics=(clear)` it is also where the owner clears the
/// clearable counters, as a statistics cursor would.
pub type DumpSource = Box<dyn FnMut() -> Option<Vec<Dump>> + Send>;

/// What the thread owns while it runs, handed back when it stops (for the final dump).
struct Parts {
    writer: LogWriter,
    source: DumpSource,
}

impl Parts {
    fn round(&mut self) -> io::Result<()> {
        match (self.source)() {
            Some(dumps) => self.writer.write_round(&dumps, SystemTime::now()),
            None => Ok(()),
        }
    }
}

#[derive(Default)]
struct Stop {
    stopping: Mutex<bool>,
    wake: Condvar,
}

impl Stop {
    /// Sleeps `interval` or until stopped; returns whether to stop.
    fn sleep(&self, interval: Duration) -> bool {
        let deadline = Instant::now().checked_add(interval);
        let mut stopping = self.stopping.lock();
        while !*stopping {
            match deadline {
                Some(d) => {
                    if self.wake.wait_until(&mut stopping, d).timed_out() {
                        break;
                    }
                }
                None => self.wake.wait(&mut stopping),
            }
        }
        *stopping
    }

    fn stop(&self) {
        *self.stopping.lock() = true;
        self.wake.notify_all();
    }
}

/// The statistics log: a thread appending a round every `wait` seconds (when `wait` > 0),
/// and the final round at connection close (when `on_close`).
///
/// Reconfiguring replaces the logger: drop (or [`stop`](Self::stop)) the old one, which
/// writes nothing more, and start a new one. Read-only connections start none.
pub struct StatsLogger {
    stop: Arc<Stop>,
    thread: Option<JoinHandle<(Parts, io::Result<()>)>>,
    /// The parts while no thread holds them.
    parts: Option<Parts>,
    on_close: bool,
}

impl StatsLogger {
    /// Starts logging with `config` for the connection in `home`. `statistics_enabled` is
    /// whether the database maintains statistics now (it decides JSON output).
    pub fn start(
        config: &StatsLogConfig,
        home: &Path,
        statistics_enabled: bool,
        source: DumpSource,
    ) -> Result<StatsLogger> {
        let interval = Duration::from_secs(config.wait);
        StatsLogger::start_with_interval(config, home, statistics_enabled, interval, source)
    }

    /// [`start`](Self::start) with the time between rounds given instead of `wait` seconds
    /// (tests); the thread still runs only when `wait` > 0.
    pub fn start_with_interval(
        config: &StatsLogConfig,
        home: &Path,
        statistics_enabled: bool,
        interval: Duration,
        source: DumpSource,
    ) -> Result<StatsLogger> {
        let mut parts = Parts { writer: LogWriter::new(config, home, statistics_enabled)?, source };
        let stop = Arc::new(Stop::default());
        let on_close = config.on_close;
        if !config.runs() {
            return Ok(StatsLogger { stop, thread: None, parts: Some(parts), on_close });
        }
        let s = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("statlog-server".into())
            .spawn(move || {
                while !s.sleep(interval) {
                    if let Err(e) = parts.round() {
                        return (parts, Err(e));
                    }
                }
                (parts, Ok(()))
            })
            .map_err(|e| Error::new(Kind::Generic, format!("statistics log server: {e}")))?;
        Ok(StatsLogger { stop, thread: Some(thread), parts: None, on_close })
    }

    /// Whether the logging thread runs.
    pub fn is_running(&self) -> bool {
        self.thread.is_some()
    }

    /// Stops the thread (promptly: it sleeps on a condition variable) without a final round,
    /// as a reconfiguration does. Returns the error that ended the thread, if any.
    pub fn stop(mut self) -> io::Result<()> {
        self.halt()
    }

    /// Stops the thread, then writes the final round if `on_close` is set, as connection
    /// close does. Returns the first error.
    pub fn close(mut self) -> io::Result<()> {
        let halted = self.halt();
        let last = match (&mut self.parts, self.on_close) {
            (Some(parts), true) => parts.round(),
            _ => Ok(()),
        };
        halted.and(last)
    }

    fn halt(&mut self) -> io::Result<()> {
        let Some(thread) = self.thread.take() else { return Ok(()) };
        self.stop.stop();
        match thread.join() {
            Ok((parts, result)) => {
                self.parts = Some(parts);
                result
            }
            Err(_) => Err(io::Error::other("statistics log server panicked")),
        }
    }
}

impl Drop for StatsLogger {
    fn drop(&mut self) {
        let _ = self.halt();
    }
}

#[cfg(test)]
#[path = "log_tests.rs"]
mod tests;
