//! Property-based fuzzing of the job language: whatever the text or arguments, parsing returns
//! a value or an error, never a panic. Set PROPTEST_CASES to run longer (the README records a
//! run of one million cases).

use iolens_job::value::{self, KbBase, TimeUnit};
use iolens_job::{build_jobs, ini, options, parse_args};
use proptest::prelude::*;
use std::path::Path;

struct Env;

impl ini::Environment for Env {
    fn var(&self, name: &str) -> Option<String> {
        (name == "SZ").then(|| "4k".to_string())
    }
    fn ncpus(&self) -> u64 {
        2
    }
    fn pagesize(&self) -> u64 {
        4096
    }
    fn mb_memory(&self) -> u64 {
        1024
    }
    fn read_file(&self, path: &Path) -> std::io::Result<String> {
        if path == Path::new("inc.fio") {
            Ok("bs=8k\n".into())
        } else {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such file",
            ))
        }
    }
}

fn option_name() -> impl Strategy<Value = String> {
    let names: Vec<&'static str> = options::all_names().collect();
    prop_oneof![
        4 => proptest::sample::select(names).prop_map(str::to_string),
        1 => "[a-z_]{1,12}",
    ]
}

fn option_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9]{1,12}",
        "[0-9]{1,6}[kKmMgGtTpP]?[iI]?[bB]?",
        "[0-9]{1,4}(us|ms|s|m|h|d|sec)?",
        "[0-9]{1,4}[kKm]?[-:,][0-9]{1,4}[kKm]?(,[0-9]{0,4}[kK]?)?",
        "[0-9]{1,3}%",
        "(read|write|randread|randwrite|rw|randrw|trim|trimwrite)(:-?[0-9]{1,3}k?)?",
        "(zipf|pareto|normal|zoned|zoned_abs|sequence|gauss|random)(:[0-9./:,]{0,16})?",
        "[0-9]{1,2}k/[0-9]{0,3}(:[0-9]{1,2}k/[0-9]{0,3}){0,3}",
        "[0-9]{1,2}k/[0-9]{1,3}(/[0-9]{1,2}){0,4}(:[0-9]{1,2}k/[0-9]{1,3}(/[0-9]){0,3}){0,2}(,[0-9]k/[0-9]{1,2})?",
        "\\$(ncpus|pagesize|mb_memory)[-+*/][0-9]{1,3}",
        "\\$\\{[A-Z]{1,3}\\}",
        "0x[0-9a-fA-F]{1,10}",
        "\"[a-z ]{0,8}\"",
        "\\PC{0,20}",
    ]
}

fn job_text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        3 => (option_name(), option_value()).prop_map(|(k, v)| format!("{k}={v}")),
        1 => option_name(),
        1 => "\\[[a-z0-9 _]{0,10}\\]".prop_map(|s| s.to_string()),
        1 => Just("[global]".to_string()),
        1 => Just("include inc.fio".to_string()),
        1 => Just("include missing.fio".to_string()),
        1 => "[;#].{0,20}",
        1 => "\\PC{0,40}",
    ];
    proptest::collection::vec(line, 0..24).prop_map(|lines| {
        let mut t = String::from("[job]\n");
        for l in lines {
            t.push_str(&l);
            t.push('\n');
        }
        t
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn job_files_never_panic(text in job_text()) {
        if let Ok(sections) = ini::parse_job_file(Path::new("fuzz.fio"), &text, 0, &Env) {
            let _ = build_jobs(&sections, &[]);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(text in "\\PC{0,400}") {
        if let Ok(sections) = ini::parse_job_file(Path::new("fuzz.fio"), &text, 0, &Env) {
            let _ = build_jobs(&sections, &[]);
        }
    }

    #[test]
    fn command_lines_never_panic(args in proptest::collection::vec(prop_oneof![
        (option_name(), option_value()).prop_map(|(k, v)| format!("--{k}={v}")),
        option_name().prop_map(|k| format!("--{k}")),
        option_value(),
        Just("--name=x".to_string()),
        Just("--output-format=json,normal".to_string()),
    ], 0..12)) {
        if let Ok(a) = parse_args(&args) {
            let _ = build_jobs(&a.cli_sections, &a.sections);
        }
    }

    #[test]
    fn values_never_panic(s in "\\PC{0,30}") {
        let _ = value::parse_size(&s, KbBase::Binary);
        let _ = value::parse_size(&s, KbBase::Decimal);
        let _ = value::parse_size_or_pct(&s, KbBase::Binary);
        let _ = value::parse_time(&s, TimeUnit::Sec);
        let _ = value::parse_bool(&s);
        let _ = value::parse_range_per_dir(&s, KbBase::Binary);
        let _ = value::parse_bssplit(&s, KbBase::Binary);
        let _ = iolens_job::cmdprio::parse_bssplit(&s, KbBase::Binary);
        let _ = value::parse_float_list(&s);
        let _ = value::eval_expr(&s, KbBase::Binary);
        let _ = value::split_per_dir(&s);
    }

    #[test]
    fn sizes_roundtrip(n in 0u64..(1u64 << 40), unit in proptest::sample::select(vec![("", 1u64), ("k", 1024), ("m", 1 << 20), ("KiB", 1000), ("g", 1 << 30)])) {
        let s = format!("{n}{}", unit.0);
        let v = value::parse_size(&s, KbBase::Binary);
        match n.checked_mul(unit.1) {
            Some(x) => prop_assert_eq!(v, Ok(x)),
            None => prop_assert!(v.is_err()),
        }
    }

    #[test]
    fn cmdprio_bssplit_takes_exactly_the_documented_entries(
        entries in proptest::collection::vec(
            (1u64..=4, 0u32..=110, proptest::option::of((0u32..=4, 0u32..=8))),
            1..6,
        )
    ) {
        // bs/pct or bs/pct/class/level: accepted exactly when every field is in range and
        // the shares of each block size add up to at most 100.
        let text: Vec<String> = entries
            .iter()
            .map(|(bs, pct, p)| match p {
                Some((c, l)) => format!("{bs}k/{pct}/{c}/{l}"),
                None => format!("{bs}k/{pct}"),
            })
            .collect();
        let text = text.join(":");
        let in_range = entries.iter().all(|(_, pct, p)| {
            *pct <= 100 && p.is_none_or(|(c, l)| c <= 3 && l <= 7)
        });
        let sums_ok = (1u64..=4).all(|bs| {
            entries.iter().filter(|e| e.0 == bs).map(|e| e.1).sum::<u32>() <= 100
        });
        let got = iolens_job::cmdprio::parse_bssplit(&text, KbBase::Binary);
        prop_assert_eq!(got.is_ok(), in_range && sums_ok, "cmdprio_bssplit={}: {:?}", text, got);
        if let Ok((split, _)) = got {
            let kept: usize = entries.iter().filter(|e| e.1 > 0).count();
            prop_assert_eq!(split[0].len(), kept, "non-zero entries of {}", text);
            prop_assert_eq!(&split[0], &split[1], "one list serves reads and writes: {}", text);
            prop_assert!(split[0].windows(2).all(|w| w[0].bs <= w[1].bs), "sorted by size: {}", text);
        }
    }
}
