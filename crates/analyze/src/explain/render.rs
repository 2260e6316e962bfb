//! Text and JSON forms of an [`Explanation`]. The text groups findings under a header line per
//! job and direction so that the number being explained is right above its explanation.

use super::{Explanation, Finding, JobSummary};
use crate::fmt;

/// The first line of an interrupted run's explanation.
const INTERRUPTED: &str = "INTERRUPTED: the run was stopped before its end, so every figure below covers only the part that ran; no limit, device capacity or depth is concluded from it";

fn header(j: &JobSummary) -> String {
    // A job that makes its writes durable: what one costs, not the write alone.
    let lat = match j.durable_write_us {
        Some(d) => format!(
            ", {} per durable write ({})",
            fmt::us_short(d),
            j.durable_write
        ),
        None => match (j.lat_mean_us, j.arrival_wait_us) {
            // An open loop: lat counts from each arrival; the part from submission is what
            // the findings count in flight.
            (Some(l), Some(w)) => format!(
                ", mean latency {} from arrival, {} from submission",
                fmt::us_short(l),
                fmt::us_short(l - w)
            ),
            (Some(l), None) => format!(", mean latency {}", fmt::us_short(l)),
            (None, _) => String::new(),
        },
    };
    format!(
        "{} ({}): {} IOPS, {}{lat}; bound: {}",
        j.name,
        j.direction,
        fmt::int(j.iops),
        fmt::bw(j.bw_bytes),
        j.bound.name()
    )
}

fn push_finding(out: &mut String, f: &Finding) {
    out.push_str(&format!(
        "  {} {}: {}\n",
        f.severity.label(),
        f.kind,
        f.claim
    ));
    for line in f.arithmetic.lines() {
        out.push_str(&format!("    {line}\n"));
    }
    if !f.fix.is_empty() {
        out.push_str(&format!("    fix: {}\n", f.fix));
    }
}

impl Explanation {
    /// Readable text, grouped per job and direction, most severe finding first.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.interrupted {
            out.push_str(INTERRUPTED);
            out.push_str("\n\n");
        }
        if self.context.is_empty() {
            out.push_str(
                "context: none given (--volume and --instance add checks against provisioned limits)\n\n",
            );
        } else {
            for c in &self.context {
                out.push_str(&format!("context: {c}\n"));
            }
            out.push('\n');
        }
        let mut names: Vec<&str> = vec![];
        for j in &self.jobs {
            if !names.contains(&j.name.as_str()) {
                names.push(&j.name);
            }
        }
        for f in &self.findings {
            if !f.job.starts_with("disk ") && !names.contains(&f.job.as_str()) {
                names.push(&f.job);
            }
        }
        for name in names {
            let units: Vec<&JobSummary> = self.jobs.iter().filter(|j| j.name == name).collect();
            let of_job: Vec<&Finding> = self.findings.iter().filter(|f| f.job == name).collect();
            if units.is_empty() {
                out.push_str(&format!("{name}\n"));
            }
            for u in &units {
                out.push_str(&header(u));
                out.push('\n');
                for f in of_job.iter().filter(|f| f.direction == u.direction) {
                    push_finding(&mut out, f);
                }
            }
            let rest: Vec<&&Finding> = of_job
                .iter()
                .filter(|f| !units.iter().any(|u| u.direction == f.direction))
                .collect();
            if !rest.is_empty() && !units.is_empty() {
                out.push_str(&format!("{name} (whole job):\n"));
            }
            for f in rest {
                push_finding(&mut out, f);
            }
            out.push('\n');
        }
        let devices: Vec<&Finding> = self
            .findings
            .iter()
            .filter(|f| f.job.starts_with("disk "))
            .collect();
        if !devices.is_empty() {
            out.push_str("devices:\n");
            for f in devices {
                push_finding(&mut out, f);
            }
            out.push('\n');
        }
        if !self.notes.is_empty() {
            out.push_str("notes:\n");
            for n in &self.notes {
                out.push_str(&format!("  {n}\n"));
            }
        }
        while out.ends_with("\n\n") {
            out.pop();
        }
        out
    }

    /// `{"context": [...], "findings": [{job, direction, severity, kind, claim, arithmetic, fix}],
    /// "jobs": [{name, direction, iops, bw_bytes, lat_mean_us, in_flight, ...}], "notes": [...]}`,
    /// with `"interrupted": true` for a run stopped before its end.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "context": self.context,
            "findings": self.findings,
            "jobs": self.jobs,
            "notes": self.notes,
        });
        if self.interrupted {
            v["interrupted"] = true.into();
        }
        v
    }
}
