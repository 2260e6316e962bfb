//! The corpus test: every real result under `tests-data/` (runs of iolens and fio 3.33 on one
//! machine, see `tests-data/corpus/expected.json`) gets the bound and fix written down for it.

use serde_json::Value;

use super::*;

const EXPECTED: &str = include_str!("../../tests-data/corpus/expected.json");

/// No finding of `e` advises more depth or more in flight; the error names the finding that does.
pub(super) fn no_depth_advice(e: &Explanation) -> Result<(), String> {
    for f in &e.findings {
        let fix = f.fix.to_ascii_lowercase();
        for bad in [
            "raise iodepth",
            "iodepth >=",
            "more in flight raises",
            "numjobs >=",
        ] {
            if fix.contains(bad) {
                return Err(format!(
                    "the {} finding advises more depth ('{bad}'): {}",
                    f.kind, f.fix
                ));
            }
        }
    }
    Ok(())
}

/// Phrases that say a unit's I/Os did not queue, and phrases that say they did.
const NO_QUEUE: &[&str] = &["no queue built up", "nothing queued"];
const QUEUED: &[&str] = &[
    "waited in a queue",
    "wait in a queue",
    "only wait",
    "with I/Os queued",
    "while I/Os queue",
    "queue never drained",
    "of the waiting",
];

/// The numbers written between `before` and `after` in `text`: `the other 247.7 of the`.
fn numbers_between(text: &str, before: &str, after: &str) -> Vec<f64> {
    text.match_indices(before)
        .filter_map(|(i, m)| {
            let rest = &text[i + m.len()..];
            let end = rest.find(after)?;
            rest[..end].replace(',', "").parse().ok()
        })
        .collect()
}

/// The number `s` starts with (`1,234.5 µs`), and half a unit of its last written digit: how
/// far a figure may sit from it and still be the same figure rounded.
fn leading_number(s: &str) -> Option<(f64, f64)> {
    let digits = leading_figure(s).replace(',', "");
    let decimals = digits.find('.').map_or(0, |i| digits.len() - i - 1);
    let v: f64 = digits.parse().ok()?;
    Some((v, 0.5 * 10f64.powi(-(decimals as i32)) + 1e-9))
}

/// The figure `s` starts with, as it is written (`1,234.5`), possibly empty.
fn leading_figure(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
        .unwrap_or(s.len());
    s[..end].trim_end_matches(['.', ','])
}

/// Every figure written right after `marker` in `text`, as it is written.
fn figures_after<'a>(text: &'a str, marker: &str) -> Vec<&'a str> {
    text.match_indices(marker)
        .map(|(i, m)| leading_figure(&text[i + m.len()..]))
        .filter(|f| !f.is_empty())
        .collect()
}

/// Whether figure `a` and figure `b` can be one number written at two precisions.
fn same_figure(a: &str, b: &str) -> bool {
    match (leading_number(a), leading_number(b)) {
        (Some((x, tx)), Some((y, ty))) => (x - y).abs() <= tx.max(ty),
        _ => false,
    }
}

/// The headline of a unit and its figures: IOPS, the mean latency or a durable write's cost,
/// and the bound it names.
struct Headline<'a> {
    line: &'a str,
    iops: &'a str,
    mean_latency: Option<&'a str>,
    /// In an open loop, the mean latency from submission (lat counts from each arrival).
    flight_latency: Option<&'a str>,
    durable_write: Option<&'a str>,
    bound: &'a str,
}

fn headline<'a>(text: &'a str, j: &JobSummary) -> Option<Headline<'a>> {
    let start = format!("{} ({}): ", j.name, j.direction);
    let line = text.lines().find(|l| l.starts_with(&start))?;
    let rest = &line[start.len()..];
    let iops = figures_after(line, &start).into_iter().next()?;
    let durable_write = rest
        .find(" per durable write")
        .and_then(|i| rest[..i].rsplit(", ").next());
    Some(Headline {
        line,
        iops,
        mean_latency: figures_after(rest, "mean latency ").into_iter().next(),
        flight_latency: figures_after(rest, " from arrival, ").into_iter().next(),
        durable_write,
        bound: rest.rsplit("; bound: ").next()?,
    })
}

/// What the headline of a unit says against its findings: the bound it names is the one
/// judged and the first finding's, and every figure it gives is the one the findings use.
fn headline_disagreements(e: &Explanation, text: &str, j: &JobSummary, lines: &str) -> Vec<String> {
    let unit = format!("{} ({})", j.name, j.direction);
    let Some(h) = headline(text, j) else {
        return vec![format!("{unit}: no headline in the text")];
    };
    let mut out = vec![];
    if h.bound != j.bound.name() {
        out.push(format!(
            "{unit}: the headline names bound '{}', the summary {}",
            h.bound,
            j.bound.name()
        ));
    }
    let first = e
        .findings
        .iter()
        .find(|f| f.job == j.name && f.direction == j.direction);
    if let Some(f) = first.filter(|f| f.kind != h.bound) {
        out.push(format!(
            "{unit}: the headline names bound '{}', the first finding is '{}'",
            h.bound, f.kind
        ));
    }
    let mut same = |what: &str, said: &str, head: &str| {
        if !same_figure(said, head) {
            out.push(format!(
                "{unit}: {what} {said} in a finding, {head} in the headline '{}'",
                h.line
            ));
        }
    };
    // The measured rate, and the rate Little's law and the queue are worked out with.
    for (i, m) in lines.match_indices("measured ") {
        let rest = &lines[i + m.len()..];
        let said = leading_figure(rest);
        let then = &rest[said.len()..];
        if then.starts_with(" IOPS") || then.starts_with(" (") {
            same("measured", said, h.iops);
        }
    }
    for l in lines.lines() {
        let little = l.contains(" in flight on average (Little's law)");
        if little || l.contains(" in service, the other ") {
            // The queue's sum follows the last `; ` before `in service`.
            let head = match l.find(" in service, the other ") {
                Some(i) if !little => &l[l[..i].rfind("; ").map_or(0, |k| k + 2)..i],
                _ => l,
            };
            let mut it = head.split(" IOPS x ");
            if let (Some(rate), Some(rest)) = (it.next(), it.next()) {
                let rate = rate.rsplit(' ').next().unwrap_or(rate);
                same("the rate", rate, h.iops);
                if let (true, Some(lat)) = (little, h.flight_latency.or(h.mean_latency)) {
                    same("the mean latency", rest, lat);
                }
            }
        }
    }
    if let Some(lat) = h.flight_latency.or(h.mean_latency) {
        for said in figures_after(lines, "so mean latency is ") {
            same("the mean latency", said, lat);
        }
    }
    if let Some(d) = h.durable_write {
        for l in lines
            .lines()
            .filter(|l| l.contains("a durable write costs "))
        {
            let said = l.rsplit(" = ").next().unwrap_or(l);
            same("a durable write's cost", said, d);
        }
        let jobs = figures_after(lines, " job / ");
        for said in jobs.into_iter().chain(figures_after(lines, " jobs / ")) {
            same("a durable write's cost", said, d);
        }
    }
    out
}

/// The context expected.json gives a case (what the user passes as --volume and --instance).
fn context_of(file: &str, c: &Value) -> ExplainContext {
    ExplainContext {
        volume: c["volume"]
            .as_str()
            .map(|v| crate::models::parse_volume(v).unwrap_or_else(|e| panic!("{file}: {v}: {e}"))),
        instance: c["instance"]
            .as_str()
            .map(|i| crate::models::instance(i).unwrap_or_else(|e| panic!("{file}: {i}: {e}"))),
    }
}

/// What the lines about one unit (its findings and its job's) say against each other and
/// against the unit's summary; the errors, empty when they agree.
fn disagreements(e: &Explanation) -> Vec<String> {
    let mut out = vec![];
    let rendered = e.to_text();
    for j in &e.jobs {
        // The unit's figures as its bound and secondary findings state them; the trend
        // finding quotes each phase's own rate, not the run's.
        let lines: String = e
            .findings
            .iter()
            .filter(|f| f.job == j.name && f.direction == j.direction && f.kind != "trend")
            .map(|f| format!("{}\n{}\n{}\n", f.claim, f.arithmetic, f.fix))
            .collect();
        out.extend(headline_disagreements(e, &rendered, j, &lines));
        let text: String = e
            .findings
            .iter()
            .filter(|f| f.job == j.name && (f.direction == j.direction || f.direction.is_empty()))
            .map(|f| format!("{}\n{}\n{}\n", f.claim, f.arithmetic, f.fix))
            .collect();
        let unit = format!("{} ({})", j.name, j.direction);
        let says = |set: &[&'static str]| set.iter().find(|p| text.contains(*p)).copied();
        let (none, queued) = (says(NO_QUEUE), says(QUEUED));
        if let (Some(a), Some(b)) = (none, queued) {
            out.push(format!("{unit}: says both '{a}' and '{b}'"));
        }
        // A line that puts the typical I/O at many times its service time says I/Os waited:
        // it may not also say that nothing queued.
        for line in text.lines() {
            let ratio = numbers_between(line, "= ", " x the")
                .into_iter()
                .fold(0.0, f64::max);
            let none = NO_QUEUE
                .iter()
                .chain(&["no queue"])
                .find(|p| line.contains(**p));
            if let (true, Some(a)) = (ratio >= super::bound::QUEUEING, none) {
                out.push(format!(
                    "{unit}: a line says {ratio} x its service time and '{a}' together: {line}"
                ));
            }
        }
        let q = j.queue.as_ref();
        let is_queued = q.is_some_and(|q| q.queued);
        if let (Some(a), true) = (none, is_queued) {
            out.push(format!(
                "{unit}: the queue summary says I/Os queued, a line says '{a}'"
            ));
        }
        if let (Some(b), false) = (queued, is_queued) {
            out.push(format!(
                "{unit}: the queue summary says no I/O queued, a line says '{b}'"
            ));
        }
        // One count of waiting I/Os, Little's law's, wherever it is stated.
        let waiting = numbers_between(&text, "the other ", " of the ");
        if let Some(w) = q.and_then(|q| q.waiting) {
            if let Some(x) = waiting.iter().find(|x| (*x - w).abs() > 0.05 + 1e-9) {
                out.push(format!(
                    "{unit}: {x} waiting stated, Little's law gives {w:.2}"
                ));
            }
        } else if !waiting.is_empty() {
            out.push(format!(
                "{unit}: {waiting:?} waiting stated without a queue"
            ));
        }
        // One average in flight.
        let little = numbers_between(&text, "= ", " I/Os in flight on average")
            .into_iter()
            .chain(numbers_between(&text, "= ", " I/O in flight on average"));
        for x in little {
            let l = j.littles_in_flight.unwrap_or(f64::NAN);
            if (x - l).abs() > 0.05 + 1e-9 {
                out.push(format!(
                    "{unit}: {x} in flight on average stated, Little's law gives {l:.2}"
                ));
            }
        }
        // More in flight raises IOPS only where nothing waited.
        if j.bound == Bound::Concurrency && is_queued {
            out.push(format!("{unit}: bound concurrency although I/Os queued"));
        }
        // A rate that changed during the run: named, and no steady state claimed.
        if matches!(
            j.trend.as_str(),
            "falling" | "rising" | "periodic" | "unsteady"
        ) {
            if !e
                .findings
                .iter()
                .any(|f| f.job == j.name && f.kind == "trend")
            {
                out.push(format!("{unit}: trend {} without a trend finding", j.trend));
            }
            if let Some(a) = none {
                out.push(format!(
                    "{unit}: trend {} and a steady claim '{a}'",
                    j.trend
                ));
            }
        }
    }
    out
}

#[test]
fn corpus_explanations_agree_with_themselves() {
    let expected: Value = serde_json::from_str(EXPECTED).expect("expected.json parses");
    let cases = expected["cases"].as_array().expect("cases");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data");
    // Every result in the corpus directory is a case.
    let listed: Vec<&str> = cases.iter().filter_map(|c| c["file"].as_str()).collect();
    for f in std::fs::read_dir(dir.join("corpus")).expect("the corpus directory") {
        let name = f.expect("a corpus entry").file_name();
        let name = format!("corpus/{}", name.to_string_lossy());
        if name.ends_with(".json") && !name.ends_with("/expected.json") {
            assert!(
                listed.contains(&name.as_str()),
                "{name} is in the corpus directory but not a case of expected.json"
            );
        }
    }
    let mut failures = vec![];
    for c in cases {
        let file = c["file"].as_str().unwrap();
        let text = std::fs::read_to_string(dir.join(file))
            .unwrap_or_else(|e| panic!("cannot read corpus file {file}: {e}"));
        let view = parse_result(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let e = explain(&view, &context_of(file, c));
        let mut found = disagreements(&e);
        let first = &e.jobs[0];
        if let Some(q) = c["queued"].as_bool() {
            let got = first.queue.as_ref().is_some_and(|x| x.queued);
            if got != q {
                found.push(format!("expected queued={q}, the summary says {got}"));
            }
        }
        if let Some(t) = c["trend"].as_str() {
            if first.trend != t {
                found.push(format!("expected trend {t}, got '{}'", first.trend));
            }
        }
        if !found.is_empty() {
            failures.push(format!(
                "{file}:\n  {}\n{}",
                found.join("\n  "),
                e.to_text()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus cases contradict themselves:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_agreement_check_catches_each_contradiction() {
    // The QD256 case agrees with itself; each edit below makes one line contradict another.
    let file = "sim-io1-16000-libaio-qd256.iolens.json";
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data/corpus");
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let e = explain(&parse_result(&text).unwrap(), &ExplainContext::default());
    assert_eq!(
        disagreements(&e),
        Vec::<String>::new(),
        "{file} as explained"
    );
    type Edit = fn(&mut Explanation);
    let edits: [(&str, Edit, &str); 7] = [
        (
            "a line that says no queue built up",
            |e| {
                e.findings[0]
                    .arithmetic
                    .push_str("\nlatency is the service time, no queue built up")
            },
            "says both 'no queue built up' and 'waited in a queue'",
        ),
        (
            "another count of waiting I/Os",
            |e| {
                e.findings[0].arithmetic = e.findings[0]
                    .arithmetic
                    .replace("the other 248.2", "the other 249")
            },
            "249 waiting stated",
        ),
        (
            "a headline with another bound",
            |e| e.jobs[0].bound = Bound::Saturated,
            "the headline names bound 'saturated', the first finding is 'limit'",
        ),
        (
            "another measured rate",
            |e| {
                e.findings[0].arithmetic = e.findings[0]
                    .arithmetic
                    .replace("measured 16,001 IOPS", "measured 16,100 IOPS")
            },
            "measured 16,100 in a finding, 16,001 in the headline",
        ),
        (
            "another mean latency",
            |e| {
                e.findings[0].arithmetic = e.findings[0]
                    .arithmetic
                    .replace("so mean latency is 15,978", "so mean latency is 15,000")
            },
            "the mean latency 15,000 in a finding, 15,978 in the headline",
        ),
        (
            "another rate in the queue's sum",
            |e| {
                e.findings[0].arithmetic = e.findings[0]
                    .arithmetic
                    .replace("16,001 IOPS x 465 µs", "16,000 IOPS x 465 µs")
            },
            "the rate 16,000 in a finding, 16,001 in the headline",
        ),
        (
            "a typical I/O 84.5 times the floor with no queue",
            |e| {
                e.findings[0].arithmetic.push_str(
                    "\ntypical clat (p50) 83 µs = 84.5 x the floor (p5) of 1 µs: latency is the service time, no queue built up",
                )
            },
            "84.5 x its service time and 'no queue built up' together",
        ),
    ];
    for (what, edit, want) in edits {
        let mut bad = e.clone();
        edit(&mut bad);
        let found = disagreements(&bad);
        assert!(
            found.iter().any(|m| m.contains(want)),
            "{file} with {what}: expected a disagreement containing '{want}', found {found:?}"
        );
    }
}

#[test]
fn a_partly_cached_buffered_read_is_not_said_to_have_no_queue() {
    // The cold buffered read with a twentieth of its reads served by the page cache: p5 falls
    // to 1 µs while p50 stays at 81.4 µs (a device read), 81.4 x the floor at one I/O in
    // flight. Nothing of the job's queued (one I/O at a time), so the line may not call the
    // floor the service time, nor put "no queue" beside a ratio that large.
    let file = "cache-buffered-read-cold.iolens.json";
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data/corpus");
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap();
    for p in ["1.000000", "5.000000"] {
        v["jobs"][0]["read"]["clat_ns"]["percentile"][p] = serde_json::json!(1000);
    }
    let e = explain(
        &parse_result(&v.to_string()).unwrap(),
        &ExplainContext::default(),
    );
    let text = e.to_text();
    let line = text
        .lines()
        .find(|l| l.contains("x the floor (p5)"))
        .unwrap_or_else(|| {
            panic!("{file} with p5 at 1 µs: expected a line against the floor, got:\n{text}")
        });
    assert!(
        line.contains("81.4 x the floor (p5) of 1 µs")
            && line.contains("none of the job's I/Os waited behind another")
            && line.contains("page cache")
            && !line.contains("no queue"),
        "{file} with p5 at 1 µs (p50 81.4 µs, one I/O in flight): expected the ratio, that nothing waited and that the page cache served some reads, never 'no queue'; got: {line}"
    );
    assert_eq!(
        disagreements(&e),
        Vec::<String>::new(),
        "{file} with p5 at 1 µs agrees with itself"
    );
}

#[test]
fn corpus_cases_get_their_bound_and_fix() {
    let expected: Value = serde_json::from_str(EXPECTED).expect("expected.json parses");
    let cases = expected["cases"].as_array().expect("cases");
    assert!(
        cases.len() >= 25,
        "the corpus has {} cases, at least 25 expected",
        cases.len()
    );
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data");
    let mut failures = vec![];
    for c in cases {
        let file = c["file"].as_str().unwrap();
        let want = c["bound"].as_str().unwrap();
        let mut accepted = vec![want.to_string()];
        if let Some(a) = c["also_accepted"].as_array() {
            accepted.extend(a.iter().map(|x| x.as_str().unwrap().to_string()));
        }
        let text = std::fs::read_to_string(dir.join(file))
            .unwrap_or_else(|e| panic!("cannot read corpus file {file}: {e}"));
        let view = parse_result(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        // `volume` and `instance` are what the user would pass as --volume and --instance.
        let ctx = ExplainContext {
            volume: c["volume"].as_str().map(|v| {
                crate::models::parse_volume(v).unwrap_or_else(|e| panic!("{file}: {v}: {e}"))
            }),
            instance: c["instance"]
                .as_str()
                .map(|i| crate::models::instance(i).unwrap_or_else(|e| panic!("{file}: {i}: {e}"))),
        };
        let e = explain(&view, &ctx);
        let job = e.jobs.first().unwrap_or_else(|| panic!("{file}: no job"));
        let got = job.bound.name();
        let rendered = e.to_text();
        if !accepted.iter().any(|a| a == got) {
            failures.push(format!(
                "{file}: expected bound {} ({}), got {got}:\n{rendered}",
                accepted.join(" or "),
                c["why"].as_str().unwrap_or("")
            ));
            continue;
        }
        let fix = c["fix_contains"].as_str().unwrap();
        if got == want && !job.bound_fix.contains(fix) {
            failures.push(format!(
                "{file}: the {got} fix should contain '{fix}', it is: {}",
                job.bound_fix
            ));
        }
        if let Some(bad) = c["fix_excludes"].as_str() {
            if let Some(f) = e.findings.iter().find(|f| f.fix.contains(bad)) {
                failures.push(format!(
                    "{file}: no fix should contain '{bad}', the {} finding's is: {}",
                    f.kind, f.fix
                ));
            }
        }
        if let Some(ctx) = c["context_contains"].as_str() {
            if !e.context.iter().any(|l| l.contains(ctx)) {
                failures.push(format!(
                    "{file}: context should name '{ctx}' (from --volume/--instance or the job's sim_volume), it is {:?}",
                    e.context
                ));
            }
        }
        if let Some(by) = c["limited_by_contains"].as_str() {
            let limited_by = job
                .expected
                .as_ref()
                .map(|x| x.limited_by.clone())
                .unwrap_or_default();
            if !limited_by.contains(by) {
                failures.push(format!(
                    "{file}: the expected ceiling should be limited by '{by}', it is '{limited_by}'"
                ));
            }
        }
        if got == "saturated" || got == "limit" {
            if let Err(m) = no_depth_advice(&e) {
                failures.push(format!("{file}: bound {got} but {m}"));
            }
        }
        if !rendered.contains(&format!("; bound: {got}\n")) {
            failures.push(format!(
                "{file}: the text headline does not name the bound {got}"
            ));
        }
        let json = e.to_json().to_string();
        if json.contains("shared/") || rendered.contains("shared/") {
            failures.push(format!("{file}: an internal path leaked into the output"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn acceptance_cases_of_issue_9() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data/corpus");
    let load = |f: &str| {
        let t = std::fs::read_to_string(dir.join(f)).unwrap();
        explain(&parse_result(&t).unwrap(), &ExplainContext::default())
    };
    // fio's JSON of seed 003's fsync=1 job.
    let e = load("fsync-iouring-fsync1.fio.json");
    assert_eq!(e.jobs[0].bound, Bound::Fsync, "{}", e.to_text());
    let j = &e.to_json()["jobs"][0];
    assert_eq!(
        j["bound"], "fsync",
        "explain --format json names the bound: {j}"
    );
    // The throttled Q32x4 run: saturated or limit, never more depth.
    for f in [
        "throttle2000-libaio-q32t4.fio.json",
        "throttle2000-libaio-q32t4.iolens.json",
    ] {
        let e = load(f);
        assert!(
            matches!(e.jobs[0].bound, Bound::Limit | Bound::Saturated),
            "{f}: {}",
            e.to_text()
        );
        no_depth_advice(&e).unwrap_or_else(|m| panic!("{f}: {m}"));
    }
    // The seed's psync run on the simulated io1 volume: concurrency, with the volume as context
    // although no --volume was given.
    let e = load("sim-io1-psync-numjobs4.iolens.json");
    assert_eq!(e.jobs[0].bound, Bound::Concurrency, "{}", e.to_text());
    assert!(
        e.context[0].contains("io1 48,000 IOPS")
            && e.context[0].contains("sim_volume=io1:iops=48000"),
        "context from the job's sim_volume: {:?}",
        e.context
    );
    assert!(
        e.jobs[0].expected.is_some(),
        "the ceiling comes from the simulated volume"
    );
    // Glitches: configured depth printed as configured, shares of their own sum, no -0.0.
    let e = load("fsync-iouring-fsync1.fio.json");
    let text = e.to_text();
    assert!(!text.contains("200.0 %"), "{text}");
    assert!(!e.to_json().to_string().contains("-0.0"), "{}", e.to_json());
    let e = load("virtio-libaio-q32t4.fio.json");
    assert_eq!(e.jobs[0].in_flight, 128.0);
    assert!(e.to_text().contains("; 128 configured"), "{}", e.to_text());
}
