//! Results of several clients (ranks of a cluster run, or runs merged with `iolens merge`) in
//! fio's client/server layout: each client's jobs, then an "All clients" aggregate.
//!
//! JSON: `client_stats` holds one entry per client and job, with `hostname` (and, from a
//! cluster run, `rank` and `job_start` in ms since the epoch) added at its end, then the "All
//! clients" entry; iolens also writes `jobs`, one entry per job name merged over the clients,
//! so tools that read `jobs` see the totals.

use std::fmt::Write as _;

use iolens_stats::{JobResult, RunResult};

use crate::json::{job_with, Extra, W};

/// One client's result.
pub struct Client<'a> {
    /// Host name (or, for `iolens merge`, the input file).
    pub hostname: &'a str,
    /// Rank in a cluster run.
    pub rank: Option<u32>,
    /// When its jobs started, ms since the epoch.
    pub job_start_ms: Option<u64>,
    /// What it measured.
    pub result: &'a RunResult,
}

/// Everything a client/server report shows.
pub struct Clients<'a> {
    /// Each client.
    pub clients: Vec<Client<'a>>,
    /// Jobs merged by name, groups merged by id, every client's disks.
    pub merged: &'a RunResult,
    /// Every job of every client merged into one entry named "All clients" (None for one
    /// client, as fio).
    pub all: Option<&'a JobResult>,
    /// Lines printed after the normal output (failures, what could not be merged exactly).
    pub notes: &'a [String],
    /// Top-level members the JSON document gains after fio's (`iolens_explain`).
    pub extra: &'a [crate::json::Member],
}

fn extras<'a>(c: &'a Client<'a>) -> Vec<Extra<'a>> {
    let mut v = vec![Extra::Str("hostname", c.hostname)];
    if let Some(r) = c.rank {
        v.push(Extra::Int("rank", r as u64));
    }
    if let Some(t) = c.job_start_ms {
        v.push(Extra::Int("job_start", t));
    }
    v
}

/// JSON (json+ with `plus`) in fio's client/server layout.
pub fn json(c: &Clients, plus: bool) -> String {
    let r = c.merged;
    let mut w = W::new();
    w.open(None, '{');
    crate::json::preamble(&mut w, r);
    w.open(Some("client_stats"), '[');
    for cl in &c.clients {
        let ex = extras(cl);
        for j in &cl.result.jobs {
            job_with(&mut w, j, plus, &ex);
        }
    }
    if let Some(a) = c.all {
        job_with(&mut w, a, plus, &[]);
    }
    w.close(']');
    w.open(Some("jobs"), '[');
    for j in &r.jobs {
        job_with(&mut w, j, plus, &[]);
    }
    w.close(']');
    if !c.notes.is_empty() {
        w.open(Some("notes"), '[');
        for n in c.notes {
            w.sep();
            w.out.push_str(&crate::json::escape(n));
        }
        w.close(']');
    }
    crate::json::members(&mut w, c.extra);
    w.close('}');
    w.out.push('\n');
    w.out
}

/// Normal output: each client's report under a `hostname=` line, then "All clients" and the
/// merged run status groups.
pub fn normal(c: &Clients) -> String {
    let mut o = String::new();
    for cl in &c.clients {
        let _ = write!(o, "\nhostname={}", cl.hostname);
        if let Some(r) = cl.rank {
            let _ = write!(o, ", rank={r}");
        }
        if let Some(t) = cl.job_start_ms {
            let _ = write!(o, ", job_start={t}");
        }
        o.push('\n');
        o.push_str(&crate::normal::render(cl.result));
    }
    if let Some(a) = c.all {
        o.push('\n');
        crate::normal::render_job(&mut o, a, &c.merged.time);
        for g in &c.merged.groups {
            crate::normal::group_block(&mut o, g);
        }
    }
    for n in c.notes {
        let _ = writeln!(o, "\nnote: {n}");
    }
    o
}

/// Terse output: every client's lines, then the "All clients" line.
pub fn terse(c: &Clients, version: u32) -> String {
    let mut o = String::new();
    for cl in &c.clients {
        o.push_str(&crate::terse::render(cl.result, version));
    }
    if let Some(a) = c.all {
        let r = RunResult {
            jobs: vec![a.clone()],
            ..c.merged.clone()
        };
        o.push_str(&crate::terse::render(&r, version));
    }
    o
}
