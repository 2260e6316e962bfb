//! `iolens quick`: the test sets CrystalDiskMark 8 and KDiskMark users know, each test (and
//! each pass of it) a job of its own, and one summary table: MB/s, IOPS, mean and p99 latency
//! per test, the best of the passes as CrystalDiskMark reports it. The `durability` profile
//! (seed 003) measures what a flush costs: 4 KiB random writes at QD1 without a flush, with
//! `fsync=1`, `fdatasync=1`, `sync=dsync` (O_DSYNC) and O_DIRECT + O_DSYNC.

use std::fmt::Write;

use iolens_analyze::Finding;
use iolens_stats::{DirResult, RunResult};

use crate::metrics::{fmt_int, fmt_ns, of_run, Metrics};
use crate::SuiteError;

/// One preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// Label as the desktop tools print it.
    pub label: &'static str,
    /// Sequential (true) or random.
    pub sequential: bool,
    /// Block size in bytes.
    pub bs: u64,
    /// Queue depth per thread.
    pub qd: u32,
    /// Threads.
    pub threads: u32,
}

const fn p(label: &'static str, sequential: bool, bs: u64, qd: u32, threads: u32) -> Preset {
    Preset {
        label,
        sequential,
        bs,
        qd,
        threads,
    }
}

const SEQ1M_Q8T1: Preset = p("SEQ1M Q8T1", true, 1 << 20, 8, 1);
const SEQ1M_Q1T1: Preset = p("SEQ1M Q1T1", true, 1 << 20, 1, 1);
const SEQ128K_Q32T1: Preset = p("SEQ128K Q32T1", true, 128 << 10, 32, 1);
const RND4K_Q32T16: Preset = p("RND4K Q32T16", false, 4 << 10, 32, 16);
const RND4K_Q32T1: Preset = p("RND4K Q32T1", false, 4 << 10, 32, 1);
const RND4K_Q1T1: Preset = p("RND4K Q1T1", false, 4 << 10, 1, 1);

/// CrystalDiskMark 7's default list (iolens quick's set before profiles): also CDM 8's
/// "NVMe SSD" list.
pub const PRESETS: [Preset; 4] = [SEQ1M_Q8T1, SEQ128K_Q32T1, RND4K_Q32T16, RND4K_Q1T1];
/// CrystalDiskMark 8 / KDiskMark default.
pub const CDM8_DEFAULT: [Preset; 4] = [SEQ1M_Q8T1, SEQ1M_Q1T1, RND4K_Q32T1, RND4K_Q1T1];
/// CrystalDiskMark 8 "Peak Performance".
pub const CDM8_PEAK: [Preset; 2] = [SEQ1M_Q8T1, RND4K_Q32T16];
/// CrystalDiskMark 8 "Real World Performance".
pub const CDM8_REAL_WORLD: [Preset; 2] = [SEQ1M_Q1T1, RND4K_Q1T1];

/// A test set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// CDM 8 default: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1.
    Default,
    /// CDM 8 peak: SEQ1M Q8T1, RND4K Q32T16.
    Peak,
    /// CDM 8 real world: SEQ1M Q1T1, RND4K Q1T1.
    RealWorld,
    /// CDM 8 NVMe SSD: SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1.
    Nvme,
    /// CDM 7 default (the same four as NVMe).
    Cdm7,
    /// 4 KiB QD1 random writes with each way of making them durable.
    Durability,
}

/// Every profile name, for help and errors.
pub const PROFILE_NAMES: &str = "default, peak, real-world, nvme, cdm7, durability";

impl Profile {
    /// Parses a profile name (`real-world`/`realworld`, `nvme`/`ssd`).
    pub fn parse(s: &str) -> Result<Profile, SuiteError> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "default" | "cdm8" => Profile::Default,
            "peak" => Profile::Peak,
            "real-world" | "realworld" | "real" => Profile::RealWorld,
            "nvme" | "ssd" | "nvme-ssd" => Profile::Nvme,
            "cdm7" => Profile::Cdm7,
            "durability" | "fsync" => Profile::Durability,
            other => {
                return Err(SuiteError(format!(
                    "unknown --profile '{other}'; allowed: {PROFILE_NAMES}"
                )))
            }
        })
    }

    /// Name as given on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::Peak => "peak",
            Profile::RealWorld => "real-world",
            Profile::Nvme => "nvme",
            Profile::Cdm7 => "cdm7",
            Profile::Durability => "durability",
        }
    }

    /// The presets of a throughput profile (none for durability).
    pub fn presets(self) -> &'static [Preset] {
        match self {
            Profile::Default => &CDM8_DEFAULT,
            Profile::Peak => &CDM8_PEAK,
            Profile::RealWorld => &CDM8_REAL_WORLD,
            Profile::Nvme | Profile::Cdm7 => &PRESETS,
            Profile::Durability => &[],
        }
    }
}

/// The rows of the durability profile: label, options.
pub const DURABILITY: [(&str, &str); 5] = [
    ("no flush", "direct=0"),
    ("fsync=1", "direct=0\nfsync=1"),
    ("fdatasync=1", "direct=0\nfdatasync=1"),
    ("O_DSYNC (sync=dsync)", "direct=0\nsync=dsync"),
    ("O_DIRECT+O_DSYNC", "direct=1\nsync=dsync"),
];

/// Settings of a quick run.
#[derive(Debug, Clone, PartialEq)]
pub struct QuickSpec {
    /// File or device to test.
    pub target: String,
    /// Size of the test region (fio size string, e.g. `256m`).
    pub size: String,
    /// Seconds per test.
    pub runtime_s: u64,
    /// Seconds of ramp before each test is measured.
    pub ramp_s: u64,
    /// Engine (`io_uring` or `libaio`).
    pub engine: String,
    /// O_DIRECT.
    pub direct: bool,
    /// Only the read tests.
    pub read_only: bool,
    /// Test set.
    pub profile: Profile,
    /// Passes per test (the best is reported).
    pub passes: u32,
    /// What the target is and where it lives (its file system and device), for the table's
    /// head; empty when unknown.
    pub place: String,
}

/// The name of a test's job: preset label and direction.
pub fn job_name(p: &Preset, write: bool) -> String {
    format!(
        "{}-{}",
        p.label.replace(' ', "-"),
        if write { "write" } else { "read" }
    )
}

/// One job file to run: a test (one pass of it).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Test label (`SEQ1M Q8T1 read`, `fsync=1`).
    pub test: String,
    /// 1-based pass.
    pub pass: u32,
    /// The fio job file.
    pub job: String,
}

impl Step {
    /// Progress label: `SEQ1M Q8T1 read, pass 2/3`.
    pub fn label(&self, passes: u32) -> String {
        if passes > 1 {
            format!("{}, pass {}/{passes}", self.test, self.pass)
        } else {
            self.test.clone()
        }
    }
}

fn global(q: &QuickSpec, t: &mut String, direct: bool, engine: &str) {
    let _ = writeln!(t, "[global]");
    let _ = writeln!(t, "filename={}", q.target.replace(':', "\\:"));
    let _ = writeln!(t, "size={}", q.size);
    let _ = writeln!(t, "ioengine={engine}");
    let _ = writeln!(t, "direct={}", u8::from(direct));
    let _ = writeln!(t, "runtime={}", q.runtime_s);
    if q.ramp_s > 0 {
        let _ = writeln!(t, "ramp_time={}", q.ramp_s);
    }
    let _ = writeln!(t, "time_based=1");
    let _ = writeln!(t, "group_reporting=1");
    let _ = writeln!(t, "randrepeat=0");
    let _ = writeln!(t, "norandommap=1");
    let _ = writeln!(t, "refill_buffers=0");
    // Percentiles of total latency, so the table's mean and p99 are of one latency.
    let _ = writeln!(t, "lat_percentiles=1");
}

/// Every job file of the run, in order: each test's passes one after another.
pub fn steps(q: &QuickSpec) -> Vec<Step> {
    let mut out = vec![];
    let passes = q.passes.max(1);
    if q.profile == Profile::Durability {
        for (label, opts) in DURABILITY {
            for pass in 1..=passes {
                let mut t = format!("; iolens quick --profile durability: {label}\n");
                // QD1 writes through a synchronous engine, as an application's write + flush.
                global(q, &mut t, false, "psync");
                let _ = writeln!(t, "\n[{}]", label.replace([' ', '(', ')', '+', '='], "-"));
                let _ = writeln!(t, "rw=randwrite\nbs=4k\niodepth=1\n{opts}");
                out.push(Step {
                    test: label.to_string(),
                    pass,
                    job: t,
                });
            }
        }
        return out;
    }
    for p in q.profile.presets() {
        for write in [false, true] {
            if write && q.read_only {
                continue;
            }
            for pass in 1..=passes {
                let mut t = format!(
                    "; iolens quick --profile {}: {}\n",
                    q.profile.name(),
                    p.label
                );
                global(q, &mut t, q.direct, &q.engine);
                let _ = writeln!(t, "\n[{}]", job_name(p, write));
                let rw = match (p.sequential, write) {
                    (true, false) => "read",
                    (true, true) => "write",
                    (false, false) => "randread",
                    (false, true) => "randwrite",
                };
                let _ = writeln!(t, "rw={rw}");
                let _ = writeln!(t, "bs={}k", p.bs / 1024);
                let _ = writeln!(t, "iodepth={}", p.qd);
                let _ = writeln!(t, "numjobs={}", p.threads);
                out.push(Step {
                    test: format!("{} {}", p.label, if write { "write" } else { "read" }),
                    pass,
                    job: t,
                });
            }
        }
    }
    out
}

/// The direction a test measured.
fn measured(r: &RunResult) -> Option<&DirResult> {
    let j = r.jobs.first()?;
    j.dirs.iter().find(|d| d.total_ios > 0)
}

/// For each test (in order), the index of its best pass among `results` (highest MB/s).
pub fn best_passes(steps: &[Step], results: &[RunResult]) -> Vec<(String, usize)> {
    let mut best: Vec<(String, usize)> = vec![];
    for (i, (s, r)) in steps.iter().zip(results).enumerate() {
        // A complete pass beats an interrupted one, which covers only part of its runtime.
        let key = |r: &RunResult| (!r.interrupted, measured(r).map_or(0, DirResult::bw_bytes));
        match best.iter_mut().find(|(t, _)| *t == s.test) {
            Some((_, b)) => {
                if key(r) > key(&results[*b]) {
                    *b = i;
                }
            }
            None => best.push((s.test.clone(), i)),
        }
    }
    best
}

fn opt_ns(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), fmt_ns)
}

/// The summary table: one row per test (best pass), or the durability table.
pub fn table(q: &QuickSpec, steps: &[Step], results: &[RunResult]) -> String {
    let mut t = String::new();
    let passes = if q.passes > 1 {
        format!(", best of {} passes", q.passes)
    } else {
        String::new()
    };
    if q.profile == Profile::Durability {
        let _ = writeln!(
            t,
            "iolens quick --profile durability: {} ({}, psync, 4 KiB random writes at QD1, {} s per test{passes})",
            q.target, q.size, q.runtime_s
        );
        place_line(&mut t, q);
        let _ = writeln!(
            t,
            "{:<22} {:>9} {:>11} {:>11} {:>11} {:>13} {:>10}",
            "Test", "IOPS", "write lat", "p99 lat", "flush lat", "per write", "cost"
        );
        let best = best_passes(steps, results);
        let base = best
            .first()
            .map(|(_, i)| of_run(&results[*i]))
            .filter(|m| m.iops > 0.0);
        for (test, i) in &best {
            let r = &results[*i];
            let m = of_run(r);
            let sync = r.jobs.first().map(|j| &j.sync).filter(|s| s.total_ios > 0);
            let per_write = if m.iops > 0.0 { 1e9 / m.iops } else { 0.0 };
            let cost = match base {
                Some(b) if (m.iops - b.iops).abs() > f64::EPSILON || test != "no flush" => {
                    format!("x{:.1}", b.iops / m.iops.max(f64::MIN_POSITIVE))
                }
                _ => "baseline".into(),
            };
            let test = mark(test, r);
            let _ = writeln!(
                t,
                "{test:<22} {:>9} {:>11} {:>11} {:>11} {:>13} {:>10}",
                fmt_int(m.iops),
                fmt_ns(m.lat_mean_ns),
                opt_ns(m.lat_p99_ns),
                sync.map_or_else(|| "-".into(), |s| fmt_ns(s.lat.moments.mean)),
                fmt_ns(per_write),
                cost
            );
        }
        let _ = writeln!(
            t,
            "\nper write = 1 / IOPS (the write and its flush); cost = time per write against no flush. \
write lat is the write call alone; flush lat the fsync/fdatasync after it. Without a flush the writes \
land in the page cache: that row measures memory, not the disk."
        );
        interrupted_note(&mut t, steps, results);
        after_table(&mut t, q);
        return t;
    }
    let _ = writeln!(
        t,
        "iolens quick --profile {}: {} ({}, {}, direct={}, {} s per test{passes})",
        q.profile.name(),
        q.target,
        q.size,
        q.engine,
        u8::from(q.direct),
        q.runtime_s
    );
    place_line(&mut t, q);
    let _ = writeln!(
        t,
        "{:<15} {:<6} {:>10} {:>10} {:>11} {:>11}",
        "Test", "", "MB/s", "IOPS", "mean lat", "p99 lat"
    );
    for (test, i) in best_passes(steps, results) {
        let m: Metrics = of_run(&results[i]);
        let (label, dir) = test.rsplit_once(' ').unwrap_or((&test, ""));
        let dir = mark(dir, &results[i]);
        let _ = writeln!(
            t,
            "{label:<15} {dir:<6} {:>10.1} {:>10.0} {:>11} {:>11}",
            m.bw_bytes / 1e6,
            m.iops,
            fmt_ns(m.lat_mean_ns),
            opt_ns(m.lat_p99_ns)
        );
    }
    let _ = writeln!(
        t,
        "\nMB/s = 10^6 bytes per second. {}",
        latency_note(steps, results)
    );
    interrupted_note(&mut t, steps, results);
    after_table(&mut t, q);
    t
}

/// The line under the table's head that says what the target is and where it lives.
fn place_line(t: &mut String, q: &QuickSpec) {
    if !q.place.is_empty() {
        let _ = writeln!(t, "target: {}", q.place);
    }
    t.push('\n');
}

/// Below the table: that the presets are short on purpose (once, for every test) and what
/// to run next.
fn after_table(t: &mut String, q: &QuickSpec) {
    if let Some(n) = short_note(q) {
        let _ = writeln!(t, "{n}");
    }
    let _ = writeln!(t, "{}", next_steps(q));
}

/// One line for every test that ran shorter than explain counts as settled: the presets are
/// short on purpose, and how to run them longer.
pub fn short_note(q: &QuickSpec) -> Option<String> {
    let short = iolens_analyze::explain::SHORT_RUN_S;
    ((q.runtime_s as f64) < short).then(|| {
        format!(
            "Each test ran {} s: the presets are short on purpose, a first look (caches, queues \
             and burst credits may not have settled within {short} s); for settled figures run \
             them longer: --runtime 60, and --passes 3 for the best of three.",
            q.runtime_s
        )
    })
}

/// What to run next: why the numbers are what they are, and where queue depth stops paying.
pub fn next_steps(q: &QuickSpec) -> String {
    let file = if q.place.contains("temporary file") {
        "iolens-sweep.dat --unlink=1".to_string()
    } else {
        q.target.clone()
    };
    format!(
        "Next: --explain says what bounds each number; `iolens sweep iodepth=1..64 --name=r \
         --rw=randread --bs=4k --direct=1 --ioengine={} --size={} --filename={file} \
         --runtime=10 --time_based` finds the queue depth where random reads stop scaling.",
        q.engine, q.size
    )
}

/// A row's label, with `*` when its run was interrupted.
fn mark(label: &str, r: &RunResult) -> String {
    if r.interrupted {
        format!("{label} *")
    } else {
        label.to_string()
    }
}

/// The footnote of the rows marked `*`.
fn interrupted_note(t: &mut String, steps: &[Step], results: &[RunResult]) {
    if best_passes(steps, results)
        .iter()
        .any(|(_, i)| results[*i].interrupted)
    {
        let _ = writeln!(
            t,
            "* INTERRUPTED: the test stopped before its runtime; its figures cover only the time it ran."
        );
    }
}

/// What the table's latency columns are: one latency for mean and p99.
fn latency_note(steps: &[Step], results: &[RunResult]) -> &'static str {
    let kinds: Vec<&str> = best_passes(steps, results)
        .iter()
        .map(|(_, i)| of_run(&results[*i]).latency)
        .collect();
    if kinds.iter().all(|k| *k == "lat") {
        "Latency (mean and p99): lat, from submission to completion."
    } else {
        "Latency (mean and p99): clat, from the kernel's acceptance to completion (the results lack lat percentiles)."
    }
}

/// All results as one run, for JSON and normal output: each step's jobs in order, each step
/// its own reporting group.
pub fn merged(results: &[RunResult]) -> RunResult {
    let mut out = results.last().cloned().unwrap_or_default();
    out.jobs.clear();
    out.groups.clear();
    out.interrupted = false;
    for (g, r) in results.iter().enumerate() {
        for j in &r.jobs {
            let mut j = j.clone();
            j.groupid = g as u32;
            out.jobs.push(j);
        }
        for gr in &r.groups {
            let mut gr = gr.clone();
            gr.groupid = g as u32;
            out.groups.push(gr);
        }
        out.interrupted |= r.interrupted;
    }
    out
}

/// What quick's flags can change, for advice: a finding whose fix needs a job option quick
/// does not expose is shown without a fix.
fn quick_fix(kind: &str) -> Option<&'static str> {
    match kind {
        "cache" => Some("measure the device, not the page cache: --direct 1 (the default)"),
        "engine" => Some("choose the engine: --engine io_uring or --engine libaio"),
        "precondition" => Some("test a larger region: --size, or a device filled beforehand"),
        _ => None,
    }
}

/// One summary of the explanations of every test: each kind of finding once, with the tests
/// it concerns and only advice quick's own flags can follow. Kinds about options quick sets
/// itself (percentiles, ramp, rate) are left out.
pub fn explain_summary(findings: &[(String, Vec<Finding>)]) -> String {
    let mut kinds: Vec<(String, String, Vec<String>)> = vec![];
    for (test, fs) in findings {
        for f in fs {
            // short-run: quick's own line under the table says it once for every test.
            if matches!(
                f.kind.as_str(),
                "percentiles" | "ramp" | "rate-limited" | "short-run"
            ) {
                continue;
            }
            match kinds.iter_mut().find(|(k, _, _)| *k == f.kind) {
                Some((_, _, tests)) => {
                    if !tests.contains(test) {
                        tests.push(test.clone());
                    }
                }
                None => kinds.push((f.kind.clone(), f.claim.clone(), vec![test.clone()])),
            }
        }
    }
    let mut t = String::from("\nSummary of the explanations:\n");
    if kinds.is_empty() {
        t.push_str("  nothing to flag: every test ran as configured.\n");
    }
    for (kind, claim, tests) in &kinds {
        let _ = writeln!(t, "  - {kind}: {claim}");
        let _ = writeln!(t, "    tests: {}", tests.join(", "));
        if let Some(fix) = quick_fix(kind) {
            let _ = writeln!(t, "    fix: {fix}");
        }
    }
    t
}

/// Parses `--profile`, `--passes`.
pub fn parse_passes(s: &str) -> Result<u32, SuiteError> {
    match s.trim().parse::<u32>() {
        Ok(n) if (1..=100).contains(&n) => Ok(n),
        _ => Err(SuiteError(format!(
            "--passes '{s}': expected a whole number 1..100"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(profile: Profile) -> QuickSpec {
        QuickSpec {
            target: "x.tmp".into(),
            size: "256m".into(),
            runtime_s: 5,
            ramp_s: 0,
            engine: "io_uring".into(),
            direct: true,
            read_only: false,
            profile,
            passes: 1,
            place: String::new(),
        }
    }

    #[test]
    fn profiles_hold_the_desktop_tools_sets() {
        let labels = |p: Profile| p.presets().iter().map(|x| x.label).collect::<Vec<_>>();
        assert_eq!(
            labels(Profile::Default),
            ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"]
        );
        assert_eq!(labels(Profile::Peak), ["SEQ1M Q8T1", "RND4K Q32T16"]);
        assert_eq!(labels(Profile::RealWorld), ["SEQ1M Q1T1", "RND4K Q1T1"]);
        assert_eq!(
            labels(Profile::Cdm7),
            ["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T16", "RND4K Q1T1"]
        );
        assert_eq!(Profile::parse("real-world").unwrap(), Profile::RealWorld);
        let e = Profile::parse("fast").unwrap_err().to_string();
        assert!(e.contains("allowed: default, peak"), "{e}");
    }

    #[test]
    fn steps_run_each_test_and_pass_in_order() {
        let mut q = spec(Profile::Cdm7);
        q.passes = 2;
        let s = steps(&q);
        assert_eq!(s.len(), 16, "4 presets x read/write x 2 passes");
        assert_eq!(s[0].label(2), "SEQ1M Q8T1 read, pass 1/2");
        assert_eq!(s[3].label(2), "SEQ1M Q8T1 write, pass 2/2");
        assert!(s[4].job.contains("[SEQ128K-Q32T1-read]") && s[4].job.contains("iodepth=32"));
        assert!(s[12].job.contains("numjobs=1") && s[12].job.contains("bs=4k"));
        let ro = steps(&QuickSpec {
            read_only: true,
            ..spec(Profile::Peak)
        });
        assert_eq!(ro.len(), 2);
        for st in &s {
            let set = iolens_job::parse_job_text("<q>", &st.job, &iolens_job::SystemEnvironment)
                .expect("every step parses");
            assert_eq!(set.jobs.len(), 1);
        }
    }

    fn result(bytes: u64, interrupted: bool) -> RunResult {
        let mut d = DirResult {
            io_bytes: bytes,
            total_ios: bytes / 4096,
            runtime_ms: 1000,
            ..DirResult::default()
        };
        d.lat.moments.n = d.total_ios;
        RunResult {
            jobs: vec![iolens_stats::JobResult {
                dirs: [d, DirResult::default(), DirResult::default()],
                unified: "none".into(),
                ..iolens_stats::JobResult::default()
            }],
            interrupted,
            ..RunResult::default()
        }
    }

    #[test]
    fn the_table_names_where_its_target_is_and_says_once_that_the_presets_are_short() {
        let mut q = spec(Profile::Default);
        q.runtime_s = 4;
        q.place = "/data/x.tmp, a temporary file (deleted afterwards) on ext4 (/dev/vda1, \
                   mounted at /data)"
            .into();
        let st = steps(&q);
        let results: Vec<RunResult> = st.iter().map(|_| result(8 << 20, false)).collect();
        let t = table(&q, &st, &results);
        assert!(
            t.contains("target: /data/x.tmp, a temporary file (deleted afterwards) on ext4"),
            "the head should say where the target is: {t}"
        );
        assert_eq!(
            t.matches("short on purpose").count(),
            1,
            "8 tests of 4 s (under {} s) should get one line about their length: {t}",
            iolens_analyze::explain::SHORT_RUN_S
        );
        assert!(t.contains("--runtime 60"), "how to run them longer: {t}");
        assert!(
            t.contains("Next: --explain") && t.contains("--filename=iolens-sweep.dat --unlink=1"),
            "what to run next, on a file of its own for a temporary target: {t}"
        );
        q.runtime_s = 60;
        let t = table(&q, &st, &results);
        assert!(
            !t.contains("short on purpose"),
            "60 s per test is not short: {t}"
        );
    }

    #[test]
    fn an_interrupted_pass_is_marked_and_never_beats_a_complete_one() {
        let mut q = spec(Profile::RealWorld);
        q.passes = 2;
        q.read_only = true;
        let st = steps(&q);
        assert_eq!(st.len(), 4, "2 tests x 2 passes");
        // SEQ1M: pass 2 was interrupted with more bytes in it than pass 1 (a partial second
        // is no comparison); RND4K: its only passes were both interrupted.
        let results = [
            result(100 << 20, false),
            result(300 << 20, true),
            result(4 << 20, true),
            result(2 << 20, true),
        ];
        let best = best_passes(&st, &results);
        assert_eq!(
            best[0].1, 0,
            "the complete pass 1 of SEQ1M is its best: {best:?}"
        );
        let t = table(&q, &st, &results);
        let rows: Vec<&str> = t
            .lines()
            .filter(|l| l.starts_with("SEQ") || l.starts_with("RND"))
            .collect();
        assert!(
            !rows[0].contains('*'),
            "SEQ1M's best pass was complete: {t}"
        );
        assert!(rows[1].contains("read *"), "RND4K's was interrupted: {t}");
        assert!(t.contains("* INTERRUPTED"), "the footnote: {t}");
        // The HTML report says the same: the row, and a condition heading the page.
        let r = crate::html::quick(&q, &st, &results);
        let (_, _, html_rows) = r.sections[0].table.as_ref().expect("the summary table");
        let labels: Vec<&str> = html_rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(
            labels,
            ["SEQ1M Q1T1 read", "RND4K Q1T1 read (interrupted)"],
            "the HTML rows of a complete SEQ1M pass and an interrupted RND4K"
        );
        assert!(
            r.conditions.len() == 1
                && r.conditions[0].starts_with("INTERRUPTED: RND4K Q1T1 read stopped"),
            "the page is headed by the interrupted test, got {:?}",
            r.conditions
        );
    }

    #[test]
    fn durability_rows_set_each_flush() {
        let s = steps(&spec(Profile::Durability));
        assert_eq!(s.len(), 5);
        let jobs: Vec<iolens_job::JobSpec> = s
            .iter()
            .map(|st| {
                iolens_job::parse_job_text("<q>", &st.job, &iolens_job::SystemEnvironment)
                    .expect("parses")
                    .jobs
                    .remove(0)
            })
            .collect();
        assert!(!jobs[0].direct && jobs[0].fsync == 0);
        assert_eq!(jobs[1].fsync, 1);
        assert_eq!(jobs[2].fdatasync, 1);
        assert_eq!(jobs[3].sync, iolens_job::SyncMode::Dsync);
        assert!(jobs[4].direct && jobs[4].sync == iolens_job::SyncMode::Dsync);
        assert!(jobs.iter().all(|j| j.iodepth == 1 && j.bs[1] == 4096));
    }

    #[test]
    fn summary_says_each_kind_once_with_quick_advice() {
        let f = |kind: &str, claim: &str| Finding {
            job: "j".into(),
            direction: "read".into(),
            severity: iolens_analyze::Severity::Warning,
            kind: kind.into(),
            claim: claim.into(),
            arithmetic: String::new(),
            fix: "set ramp_time=5s".into(),
        };
        let s = explain_summary(&[
            (
                "SEQ1M Q8T1 read".into(),
                vec![
                    f("cache", "page cache"),
                    f("ramp", "no ramp"),
                    f("short-run", "only 1 s"),
                ],
            ),
            ("RND4K Q1T1 read".into(), vec![f("cache", "page cache")]),
        ]);
        assert_eq!(s.matches("- cache:").count(), 1, "{s}");
        assert!(s.contains("tests: SEQ1M Q8T1 read, RND4K Q1T1 read"), "{s}");
        assert!(s.contains("--direct 1") && !s.contains("ramp_time"), "{s}");
        assert!(
            !s.contains("short-run"),
            "short runs are quick's own line under the table, not a finding per test: {s}"
        );
    }
}
