//! The option definitions. Order within a category follows fio's HOWTO.

use std::time::Duration;

use super::{Apply, Category as C, Kind as K, OptDef, Status};
use crate::spec::*;
use crate::value::{self, KbBase, TimeUnit};

const S: Status = Status::Supported;

type R = Result<(), String>;

fn e(v: value::ValueError) -> String {
    v.to_string()
}

fn size(s: &JobSpec, v: &str) -> Result<u64, String> {
    value::parse_size(v, s.kb_base).map_err(e)
}

fn uint(s: &JobSpec, v: &str, min: u64, max: u64) -> Result<u64, String> {
    value::parse_uint_in(v, s.kb_base, min, max).map_err(e)
}

fn boolean(v: &str) -> Result<bool, String> {
    value::parse_bool(v).map_err(e)
}

fn time(v: &str, unit: TimeUnit) -> Result<Duration, String> {
    value::parse_time(v, unit).map_err(e)
}

/// A float list read as fio reads its merge lists: each value truncated to a whole number.
fn whole_list(v: &str) -> Result<Vec<u64>, String> {
    let l = value::parse_float_list(v).map_err(e)?;
    match l.iter().find(|x| **x < 0.0 || !x.is_finite()) {
        Some(bad) => Err(format!("{bad} is not allowed: give positive numbers")),
        None => Ok(l.iter().map(|x| *x as u64).collect()),
    }
}

fn pick<T: Copy>(v: &str, choices: &[(&str, T)]) -> Result<T, String> {
    choices
        .iter()
        .find(|(n, _)| *n == v)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            let hint = crate::error::suggest(v, names.iter().copied())
                .map(|n| format!(" (did you mean '{n}'?)"))
                .unwrap_or_default();
            format!(
                "bad value '{v}'{hint}: allowed values are {}",
                names.join(", ")
            )
        })
}

/// An enum option's values, each listed once: `$table` is what the parser picks from,
/// `$names` what `--cmdhelp` and docs/compat.md show (the option's `K::Enum`).
macro_rules! choices {
    ($table:ident, $names:ident: $t:ty = [$(($n:literal, $v:expr)),+ $(,)?]) => {
        const $table: &[(&str, $t)] = &[$(($n, $v)),+];
        const $names: &[&str] = &[$($n),+];
    };
}

choices!(VERIFY_HEADER_FORMAT, VERIFY_HEADER_FORMAT_NAMES: VerifyHeaderFormat = [
    ("3.33", VerifyHeaderFormat::Fio333),
    ("3.41", VerifyHeaderFormat::Fio341),
]);
choices!(FILETYPE, FILETYPE_NAMES: Option<FileType> = [
    ("none", None),
    ("file", Some(FileType::File)),
    ("block", Some(FileType::Block)),
    ("char", Some(FileType::Char)),
]);
choices!(CMD_WRITE_MODE, CMD_WRITE_MODE_NAMES: CmdWriteMode = [
    ("write", CmdWriteMode::Write),
    ("uncor", CmdWriteMode::Uncor),
    ("zeroes", CmdWriteMode::Zeroes),
    ("verify", CmdWriteMode::Verify),
]);
choices!(STAT_TYPE, STAT_TYPE_NAMES: StatType = [
    ("stat", StatType::Stat),
    ("lstat", StatType::Lstat),
    ("statx", StatType::Statx),
]);
/// The names of a choice list, for an option's `K::Enum`.
const fn names<T: Copy, const N: usize>(choices: &[(&'static str, T); N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = choices[i].0;
        i += 1;
    }
    out
}

const RW: &[(&str, RwKind)] = &RwKind::CHOICES;
const RW_NAMES: &[&str] = &names(&RwKind::CHOICES);
const IOENGINE: &[(&str, EngineKind)] = &EngineKind::CHOICES;
/// The engines' names, then the file and directory operations' (which run as the null engine).
const IOENGINE_NAMES: &[&str] = &{
    const E: usize = EngineKind::CHOICES.len();
    const F: usize = FileOp::NAMES.len();
    let engines = names(&EngineKind::CHOICES);
    let ops = names(&FileOp::NAMES);
    let mut out = [""; E + F];
    let mut i = 0;
    while i < E + F {
        out[i] = if i < E { engines[i] } else { ops[i - E] };
        i += 1;
    }
    out
};

choices!(KB_BASE, KB_BASE_NAMES: KbBase = [("1024", KbBase::Binary), ("1000", KbBase::Decimal)]);
choices!(UNIT_BASE, UNIT_BASE_NAMES: u32 = [("0", 0), ("1", 1), ("8", 8)]);
choices!(CLOCKSOURCE, CLOCKSOURCE_NAMES: ClockSource = [
    ("gettimeofday", ClockSource::Gettimeofday),
    ("clock_gettime", ClockSource::ClockGettime),
    ("cpu", ClockSource::Cpu),
]);
choices!(ZONEMODE, ZONEMODE_NAMES: ZoneMode = [
    ("none", ZoneMode::None),
    ("strided", ZoneMode::Strided),
    ("zbd", ZoneMode::Zbd),
]);
choices!(RW_SEQUENCER, RW_SEQUENCER_NAMES: RwSequencer = [
    ("sequential", RwSequencer::Sequential),
    ("identical", RwSequencer::Identical),
]);
choices!(UNIFIED_RW, UNIFIED_RW_NAMES: UnifiedRw = [
    ("none", UnifiedRw::None),
    ("mixed", UnifiedRw::Mixed),
    ("both", UnifiedRw::Both),
    ("0", UnifiedRw::None),
    ("1", UnifiedRw::Mixed),
    ("2", UnifiedRw::Both),
]);
choices!(FALLOCATE, FALLOCATE_NAMES: Fallocate = [
    ("none", Fallocate::None),
    ("native", Fallocate::Native),
    ("posix", Fallocate::Posix),
    ("keep", Fallocate::Keep),
    ("zero", Fallocate::Zero),
    ("truncate", Fallocate::Truncate),
    ("0", Fallocate::None),
    ("1", Fallocate::Posix),
]);
choices!(SUBMIT_MODE, SUBMIT_MODE_NAMES: SubmitMode = [
    ("inline", SubmitMode::Inline),
    ("offload", SubmitMode::Offload),
]);
choices!(FADVISE, FADVISE_NAMES: Fadvise = [
    ("0", Fadvise::Off),
    ("1", Fadvise::Auto),
    ("sequential", Fadvise::Sequential),
    ("random", Fadvise::Random),
    ("normal", Fadvise::Normal),
]);
choices!(RANDOM_GENERATOR, RANDOM_GENERATOR_NAMES: RandomGenerator = [
    ("tausworthe", RandomGenerator::Tausworthe),
    ("lfsr", RandomGenerator::Lfsr),
    ("tausworthe64", RandomGenerator::Tausworthe64),
]);
choices!(SYNC, SYNC_NAMES: SyncMode = [
    ("none", SyncMode::None),
    ("0", SyncMode::None),
    ("sync", SyncMode::Sync),
    ("1", SyncMode::Sync),
    ("dsync", SyncMode::Dsync),
]);
choices!(RATE_PROCESS, RATE_PROCESS_NAMES: RateProcess = [
    ("linear", RateProcess::Linear),
    ("poisson", RateProcess::Poisson),
]);
choices!(CPUS_POLICY, CPUS_POLICY_NAMES: CpusPolicy = [
    ("shared", CpusPolicy::Shared),
    ("split", CpusPolicy::Split),
]);
choices!(EXIT_WHAT, EXIT_WHAT_NAMES: ExitWhat = [
    ("group", ExitWhat::Group),
    ("stonewall", ExitWhat::Stonewall),
    ("all", ExitWhat::All),
]);
choices!(CONTINUE_ON_ERROR, CONTINUE_ON_ERROR_NAMES: ContinueOnError = [
    ("none", ContinueOnError::None),
    ("read", ContinueOnError::Read),
    ("write", ContinueOnError::Write),
    ("io", ContinueOnError::Io),
    ("verify", ContinueOnError::Verify),
    ("all", ContinueOnError::All),
    ("0", ContinueOnError::None),
    ("1", ContinueOnError::All),
]);

/// A log prefix: a bare `write_bw_log` (which arrives as "1") means the job name, kept empty
/// here and resolved by the writer.
fn log_prefix(v: &str) -> Result<String, String> {
    let v = v.trim();
    Ok(if v == "1" {
        String::new()
    } else {
        v.to_string()
    })
}

/// fio rejects an empty value (`bs=`, or `bs=${UNSET}`) rather than keeping the default.
fn nonempty(v: &str) -> Result<(), String> {
    if v.trim().is_empty() {
        return Err("empty value".into());
    }
    Ok(())
}

fn per_dir_sizes(s: &JobSpec, v: &str, cur: [u64; 3]) -> Result<[u64; 3], String> {
    nonempty(v)?;
    let mut out = cur;
    for (i, p) in value::split_per_dir(v).iter().enumerate() {
        if let Some(p) = p {
            out[i] = value::parse_size(p, s.kb_base).map_err(e)?;
        }
    }
    Ok(out)
}

fn per_dir_uints(s: &JobSpec, v: &str, cur: [u64; 3], max: u64) -> Result<[u64; 3], String> {
    per_dir_uints_in(s, v, cur, 0, max)
}

fn per_dir_uints_in(
    s: &JobSpec,
    v: &str,
    cur: [u64; 3],
    min: u64,
    max: u64,
) -> Result<[u64; 3], String> {
    nonempty(v)?;
    let mut out = cur;
    for (i, p) in value::split_per_dir(v).iter().enumerate() {
        if let Some(p) = p {
            out[i] = value::parse_uint_in(p, s.kb_base, min, max).map_err(e)?;
        }
    }
    Ok(out)
}

/// Parses `rw=randread:8` / `rw=write:4k`.
fn apply_rw(s: &mut JobSpec, v: &str) -> R {
    let (name, modifier) = match v.split_once(':') {
        Some((n, m)) => (n.trim(), Some(m.trim())),
        None => (v.trim(), None),
    };
    s.rw = pick(name, RW)?;
    s.rw_modifier = match modifier {
        Some(m) if !m.is_empty() => {
            // A negative modifier walks backwards (`rw=read:-8k`).
            let (neg, m) = match m.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, m),
            };
            let v = size(s, m)? as i64;
            Some(if neg { -v } else { v })
        }
        _ => None,
    };
    Ok(())
}

fn apply_ioengine(s: &mut JobSpec, v: &str) -> R {
    let name = v.trim();
    // fio accepts a leading "external:" for loadable engines; none are loadable here.
    if let Some((_, k)) = IOENGINE.iter().find(|(n, _)| *n == name) {
        s.ioengine = *k;
        s.ioengine_name = name.to_string();
        s.file_op = None;
        return Ok(());
    }
    // The file and directory operations do the null engine's I/O.
    if let Some((_, op)) = FileOp::NAMES.iter().find(|(n, _)| *n == name) {
        s.ioengine = EngineKind::Null;
        s.ioengine_name = name.to_string();
        s.file_op = Some(*op);
        return Ok(());
    }
    if let Some(ForeignEngine { why, .. }) = ForeignEngine::lookup(name) {
        return Err(format!(
            "engine {name} is not supported by iolens ({why}); supported engines: {}",
            IOENGINE_NAMES.join(", ")
        ));
    }
    let names = IOENGINE_NAMES;
    let hint = crate::error::suggest(name, names.iter().copied())
        .map(|n| format!(" (did you mean '{n}'?)"))
        .unwrap_or_default();
    Err(format!(
        "engine {name} is not supported{hint}; supported engines: {}",
        names.join(", ")
    ))
}

/// One zone list of `random_distribution=zoned:` or `zoned_abs:` (`access%/range:...`).
fn parse_zones(s: &JobSpec, kind: &str, list: &str) -> Result<RandomDistribution, String> {
    let mut zones = Vec::new();
    let mut abs = Vec::new();
    let mut total_access = 0.0;
    for z in list.split(':').filter(|z| !z.trim().is_empty()) {
        let (a, b) = z
            .split_once('/')
            .ok_or_else(|| format!("bad zone '{z}': expected access%/range"))?;
        let a: f64 = a
            .trim()
            .parse()
            .map_err(|_| format!("bad zone access percentage '{a}'"))?;
        total_access += a;
        if kind == "zoned" {
            // An empty range takes what is left of the 100 %.
            let b: f64 = if b.trim().is_empty() {
                100.0 - zones.iter().map(|z: &(f64, f64)| z.1).sum::<f64>()
            } else {
                b.trim()
                    .parse()
                    .map_err(|_| format!("bad zone range percentage '{b}'"))?
            };
            zones.push((a, b));
        } else {
            abs.push((a, value::parse_size(b, s.kb_base).map_err(e)?));
        }
    }
    if (total_access - 100.0).abs() > 1e-6 {
        return Err(format!(
            "zone access percentages add up to {total_access}, must be 100"
        ));
    }
    if kind == "zoned" {
        let total: f64 = zones.iter().map(|z| z.1).sum();
        if (total - 100.0).abs() > 1e-6 {
            return Err(format!(
                "zone range percentages add up to {total}, must be 100"
            ));
        }
        Ok(RandomDistribution::Zoned(zones))
    } else {
        Ok(RandomDistribution::ZonedAbs(abs))
    }
}

fn apply_random_distribution(s: &mut JobSpec, v: &str) -> R {
    let v = v.trim();
    let (kind, rest) = match v.split_once(':') {
        Some((k, r)) => (k, Some(r)),
        None => (v, None),
    };
    // `name:value[:center]`; fio's defaults when the value is left out: zipf θ 1.1, pareto
    // h 0.2, normal with no extra deviation (the spread of fio's sum of 12 uniform draws,
    // 1/12 of the range).
    let params = |r: Option<&str>, default: f64| -> Result<(f64, Option<f64>), String> {
        let Some(r) = r else {
            return Ok((default, None));
        };
        let mut it = r.split(':').map(str::trim);
        let v = match it.next() {
            Some("") | None => default,
            Some(x) => x
                .parse::<f64>()
                .map_err(|_| format!("bad {kind} parameter '{x}'"))?,
        };
        let center = match it.next() {
            None | Some("") => None,
            Some(x) => {
                let c = x
                    .parse::<f64>()
                    .map_err(|_| format!("bad {kind} center '{x}'"))?;
                if !(0.0..=1.0).contains(&c) {
                    return Err(format!("{kind} center {c} must be between 0 and 1"));
                }
                Some(c)
            }
        };
        if let Some(extra) = it.next() {
            return Err(format!("unexpected '{extra}' after {kind}:value:center"));
        }
        Ok((v, center))
    };
    s.random_center = None;
    s.random_distribution_by_dir = [None, None, None];
    s.random_distribution = match kind {
        "random" => RandomDistribution::Random,
        "zipf" => {
            let (t, c) = params(rest, 1.1)?;
            if t <= 0.0 || (t - 1.0).abs() < f64::EPSILON {
                return Err("zipf theta must be > 0 and not 1".into());
            }
            s.random_center = c;
            RandomDistribution::Zipf(t)
        }
        "pareto" => {
            let (h, c) = params(rest, 0.2)?;
            if !(h > 0.0 && h < 1.0) {
                return Err("pareto power must be in (0, 1)".into());
            }
            s.random_center = c;
            RandomDistribution::Pareto(h)
        }
        "normal" | "gauss" => {
            let (sd, c) = params(rest, 100.0 / 12.0)?;
            if !(sd > 0.0 && sd <= 100.0) {
                return Err("normal deviation must be in (0, 100]".into());
            }
            s.random_center = c;
            RandomDistribution::Normal(sd)
        }
        "zoned" | "zoned_abs" => {
            let r = rest.ok_or("zoned needs zones, e.g. zoned:60/10:30/20:10/70")?;
            // One list for every direction, or READ,WRITE,TRIM lists (a missing one takes the
            // read list).
            let mut lists = Vec::new();
            for list in r.split(',').take(3) {
                lists.push(if list.trim().is_empty() {
                    None
                } else {
                    Some(parse_zones(s, kind, list)?)
                });
            }
            let first = lists
                .first()
                .cloned()
                .flatten()
                .ok_or("zoned needs a zone list for reads, e.g. zoned:60/10:40/90")?;
            for (i, l) in lists.into_iter().enumerate().skip(1) {
                s.random_distribution_by_dir[i] = l;
            }
            first
        }
        "sequence" => {
            let r = rest.ok_or("sequence needs block indices, e.g. sequence:2,0,1")?;
            let idx: Result<Vec<u64>, String> =
                r.split(',').map(|x| x.trim().parse::<u64>().map_err(|_| format!("bad block index '{x}' in sequence"))).collect();
            let idx = idx?;
            if idx.is_empty() || idx.len() > 64 {
                return Err("sequence takes 1 to 64 block indices".into());
            }
            RandomDistribution::Sequence(idx)
        }
        other => {
            return Err(format!(
                "bad distribution '{other}': allowed random, zipf:θ, pareto:h, normal:σ, gauss, zoned:.., zoned_abs:.., sequence:.."
            ))
        }
    };
    Ok(())
}

fn apply_cpus_allowed(s: &mut JobSpec, v: &str) -> R {
    let mut cpus = Vec::new();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let a: usize = a.trim().parse().map_err(|_| format!("bad CPU '{a}'"))?;
                let b: usize = b.trim().parse().map_err(|_| format!("bad CPU '{b}'"))?;
                if a > b {
                    return Err(format!("bad CPU range '{part}'"));
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().map_err(|_| format!("bad CPU '{part}'"))?),
        }
    }
    if cpus.is_empty() {
        return Err("empty CPU list".into());
    }
    cpus.sort_unstable();
    cpus.dedup();
    s.cpus_allowed = Some(cpus);
    Ok(())
}

fn apply_cpumask(s: &mut JobSpec, v: &str) -> R {
    let mask = uint(s, v, 1, u64::MAX)?;
    s.cpus_allowed = Some((0..64).filter(|b| mask & (1 << b) != 0).collect());
    Ok(())
}

/// Decodes fio's pattern syntax: `0xdeadbeef`, `"text"`, `'file'` (the file's contents),
/// decimal numbers, concatenated (`0xdeadface"abcd"-12'filename'`). `%o` is refused: fio
/// allows it only in `verify_pattern` ([`parse_verify_pattern`]).
pub fn parse_pattern(v: &str) -> Result<Vec<u8>, String> {
    parse_pattern_fmt(v, false).map(|(bytes, _)| bytes)
}

/// `verify_pattern`: the pattern, and where in it each `%o` reserved the 8 bytes that each
/// I/O fills with its offset (little-endian), as fio does.
pub fn parse_verify_pattern(v: &str) -> Result<(Vec<u8>, Vec<usize>), String> {
    parse_pattern_fmt(v, true)
}

/// The pattern parser, as fio 3.33 reads patterns (observed): a decimal number is a 32-bit
/// int stored little-endian in the fewest bytes that hold it (1 to 4), a negative one always
/// in 4; a decimal run ends before `0x` (`120x01` is 12 then 0x01); hex runs of odd length
/// get a leading zero; spaces are skipped.
fn parse_pattern_fmt(v: &str, allow_offset: bool) -> Result<(Vec<u8>, Vec<usize>), String> {
    let t = v.trim();
    let b = t.as_bytes();
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    let mut i = 0;
    let hex_at = |i: usize| b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X'));
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                let q = b[i];
                let end = b[i + 1..]
                    .iter()
                    .position(|c| *c == q)
                    .ok_or("unterminated string in pattern")?;
                let text = &b[i + 1..i + 1 + end];
                if q == b'\'' {
                    // 'name': the contents of that file, as fio.
                    let name = String::from_utf8_lossy(text).into_owned();
                    let data = std::fs::read(&name)
                        .map_err(|e| format!("cannot read pattern file '{name}': {e}"))?;
                    out.extend_from_slice(&data);
                } else {
                    out.extend_from_slice(text);
                }
                i += end + 2;
            }
            _ if hex_at(i) => {
                let start = i + 2;
                let mut j = start;
                while j < b.len() && b[j].is_ascii_hexdigit() {
                    j += 1;
                }
                let hex = &t[start..j];
                if hex.is_empty() {
                    return Err("empty hex number in pattern".into());
                }
                let padded = if hex.len() % 2 == 1 {
                    format!("0{hex}")
                } else {
                    hex.to_string()
                };
                for k in (0..padded.len()).step_by(2) {
                    out.push(
                        u8::from_str_radix(&padded[k..k + 2], 16)
                            .map_err(|_| "bad hex in pattern")?,
                    );
                }
                i = j;
            }
            c if c.is_ascii_digit()
                || c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit) =>
            {
                let start = i;
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_digit() && !hex_at(j) {
                    j += 1;
                }
                let n: i64 = t[start..j].parse().map_err(|_| "bad number in pattern")?;
                if n < i32::MIN as i64 || n > i32::MAX as i64 {
                    return Err(format!(
                        "number {n} in pattern is outside a 32-bit int; write it in hex (0x...)"
                    ));
                }
                let bytes = (n as i32).to_le_bytes();
                let width = if n < 0 {
                    4
                } else {
                    (1..4).find(|w| n < 1i64 << (8 * w)).unwrap_or(4)
                };
                out.extend_from_slice(&bytes[..width]);
                i = j;
            }
            b' ' | b'|' => i += 1,
            b'%' if b[i..].starts_with(b"%o") => {
                if !allow_offset {
                    return Err(
                        "the %o (offset) format is allowed only in verify_pattern, as in fio"
                            .into(),
                    );
                }
                offsets.push(out.len());
                out.extend_from_slice(&[0; 8]);
                i += 2;
            }
            c => return Err(format!("bad character '{}' in pattern", c as char)),
        }
    }
    if out.is_empty() {
        return Err("empty pattern".into());
    }
    Ok((out, offsets))
}

fn apply_ignore_error(s: &mut JobSpec, v: &str) -> R {
    for (i, list) in v.split(',').take(3).enumerate() {
        let mut errs = Vec::new();
        for x in list.split(':').map(str::trim).filter(|x| !x.is_empty()) {
            let n = match x.parse::<i32>() {
                Ok(n) => n,
                Err(_) => {
                    crate::errno::by_name(x).ok_or_else(|| format!("unknown error name '{x}'"))?
                }
            };
            errs.push(n);
        }
        s.ignore_error[i] = errs;
    }
    Ok(())
}

choices!(VERIFY, VERIFY_NAMES: Option<VerifyKind> = [
    ("md5", Some(VerifyKind::Md5)),
    ("crc32c", Some(VerifyKind::Crc32c)),
    ("crc32c-intel", Some(VerifyKind::Crc32c)),
    ("crc32c-arm64", Some(VerifyKind::Crc32c)),
    ("crc32", Some(VerifyKind::Crc32)),
    ("crc64", Some(VerifyKind::Crc64)),
    ("crc16", Some(VerifyKind::Crc16)),
    ("crc7", Some(VerifyKind::Crc7)),
    ("sha1", Some(VerifyKind::Sha1)),
    ("sha256", Some(VerifyKind::Sha256)),
    ("sha512", Some(VerifyKind::Sha512)),
    ("xxhash", Some(VerifyKind::Xxhash)),
    ("meta", Some(VerifyKind::Meta)),
    ("pattern", Some(VerifyKind::Pattern)),
    ("pattern_hdr", Some(VerifyKind::PatternHdr)),
    ("null", Some(VerifyKind::Null)),
    ("0", None),
    ("none", None),
]);

fn apply_verify(s: &mut JobSpec, v: &str) -> R {
    let v = v.trim();
    if matches!(
        v,
        "sha3-224" | "sha3-256" | "sha3-384" | "sha3-512" | "sha224" | "sha384"
    ) {
        return Err(format!(
            "verify={v} is not supported; use md5, crc32c, crc64, sha256 or xxhash"
        ));
    }
    s.verify = pick(v, VERIFY)?;
    s.verify_name = v.to_string();
    Ok(())
}

// The engines that take an engine's option: the engines whose option lists hold it in fio
// (io_uring and io_uring_cmd share one list, so each takes the other's options; the HOWTO's
// tags leave some of those out).
const URING: &[&str] = &["io_uring", "io_uring_cmd"];
const SQPOLL: &[&str] = &["io_uring", "io_uring_cmd", "xnvme"];
const HIPRI: &[&str] = &[
    "io_uring",
    "io_uring_cmd",
    "xnvme",
    "libblkio",
    "pvsync2",
    "sg",
];
// iolens' null engine takes them too: it carries each I/O's priority like the others, so a
// run without a device shows what the options do.
const CMDPRIO: &[&str] = &["io_uring", "io_uring_cmd", "libaio", "null"];
const LIBAIO: &[&str] = &["libaio"];
const PVSYNC2: &[&str] = &["pvsync2"];
const NOWAIT: &[&str] = &["pvsync2", "libaio", "io_uring", "io_uring_cmd"];
const UNCACHED: &[&str] = &["pvsync2", "io_uring", "io_uring_cmd"];
const FILESTAT: &[&str] = &["filestat", "dirstat"];
const FUA: &[&str] = &["sg", "io_uring", "io_uring_cmd"];

macro_rules! opt {
    ($name:literal $(| $alias:literal)*, $kind:expr, $default:literal, $cat:ident, $help:literal, $example:literal, $apply:expr) => {
        OptDef {
            name: $name,
            aliases: &[$($alias),*],
            kind: $kind,
            default: $default,
            category: C::$cat,
            help: $help,
            status: S,
            prio: 0,
            apply: Some($apply as Apply),
            example: $example,
            since: "",
            engines: &[],
        }
    };
}

macro_rules! ign {
    ($name:literal $(| $alias:literal)*, $kind:expr, $cat:ident, $reason:literal) => {
        OptDef {
            name: $name,
            aliases: &[$($alias),*],
            kind: $kind,
            default: "",
            category: C::$cat,
            help: $reason,
            status: Status::Ignored($reason),
            prio: 0,
            apply: None,
            example: "",
            since: "",
            engines: &[],
        }
    };
}

macro_rules! uns {
    ($name:literal $(| $alias:literal)*, $kind:expr, $cat:ident, $reason:literal) => {
        OptDef {
            name: $name,
            aliases: &[$($alias),*],
            kind: $kind,
            default: "",
            category: C::$cat,
            help: $reason,
            status: Status::Unsupported($reason),
            prio: 0,
            apply: None,
            example: "",
            since: "",
            engines: &[],
        }
    };
}

macro_rules! eng {
    ($engine:literal, $name:literal $(| $alias:literal)*) => {
        OptDef {
            name: $name,
            aliases: &[$($alias),*],
            // Engine options are accepted bare or with a value; only the engine is judged.
            kind: K::Flag,
            default: "",
            category: C::Engine,
            help: concat!("option of ioengine=", $engine),
            status: Status::EngineOnly($engine),
            prio: 0,
            apply: None,
            example: "",
            since: "",
            engines: &[],
        }
    };
}

/// Every option fio documents, plus iolens' own.
pub static OPTIONS: &[OptDef] = &[
    // ---------------------------------------------------------------- description and units
    OptDef {
        prio: 2,
        ..opt!(
            "kb_base",
            K::Enum(KB_BASE_NAMES),
            "1024",
            Description,
            "Base of k/m/g size suffixes (1024 or 1000)",
            "1024",
            |s, v| {
                s.kb_base = pick(v.trim(), KB_BASE)?;
                Ok(())
            }
        )
    },
    OptDef {
        prio: 2,
        ..opt!(
            "unit_base",
            K::Enum(UNIT_BASE_NAMES),
            "0",
            Description,
            "Report in bytes (8, 0 = auto) or bits (1)",
            "0",
            |s, v| {
                s.unit_base = pick(v.trim(), UNIT_BASE)?;
                Ok(())
            }
        )
    },
    opt!(
        "name",
        K::Str,
        "",
        Description,
        "Job name (starts a new job on the command line)",
        "x",
        |s, v| {
            s.name = v.to_string();
            Ok(())
        }
    ),
    opt!(
        "description",
        K::Str,
        "",
        Description,
        "Text printed with the job's results",
        "a test",
        |s, v| {
            s.description = Some(v.to_string());
            Ok(())
        }
    ),
    // ---------------------------------------------------------------- time
    opt!(
        "loops",
        K::Int,
        "1",
        Time,
        "Run the workload this many times (0 runs it once, as fio)",
        "1",
        |s, v| {
            s.loops = uint(s, v, 0, u32::MAX as u64)?.max(1);
            Ok(())
        }
    ),
    opt!(
        "numjobs",
        K::Int,
        "1",
        Time,
        "Clone this job this many times",
        "1",
        |s, v| {
            s.numjobs = uint(s, v, 1, 65536)? as u32;
            Ok(())
        }
    ),
    opt!(
        "runtime" | "timeout",
        K::Time,
        "",
        Time,
        "Stop after this long (seconds by default)",
        "10",
        |s, v| {
            let t = time(v, TimeUnit::Sec)?;
            s.runtime = if t.is_zero() { None } else { Some(t) };
            Ok(())
        }
    ),
    opt!(
        "time_based",
        K::Flag,
        "0",
        Time,
        "Run for runtime even if the I/O size is done (loops over the range)",
        "1",
        |s, v| {
            s.time_based = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "startdelay",
        K::Time,
        "0",
        Time,
        "Delay the job's start (a range lo-hi picks a random delay)",
        "1",
        |s, v| {
            let (lo, hi) = match v.split_once('-') {
                Some((a, b)) => (time(a, TimeUnit::Sec)?, time(b, TimeUnit::Sec)?),
                None => {
                    let t = time(v, TimeUnit::Sec)?;
                    (t, t)
                }
            };
            s.startdelay = if lo <= hi { (lo, hi) } else { (hi, lo) };
            Ok(())
        }
    ),
    opt!(
        "ramp_time",
        K::Time,
        "0",
        Time,
        "Run this long before measuring (excluded from statistics)",
        "2",
        |s, v| {
            let t = time(v, TimeUnit::Sec)?;
            s.ramp_time = if t.is_zero() { None } else { Some(t) };
            Ok(())
        }
    ),
    OptDef {
        since: "3.42",
        ..opt!(
            "ramp_size",
            K::Size,
            "",
            Time,
            "Measure only after this much I/O (the group's together with group_reporting)",
            "64m",
            |s, v| {
                s.ramp_size = size(s, v)?;
                Ok(())
            }
        )
    },
    opt!(
        "clocksource",
        K::Enum(CLOCKSOURCE_NAMES),
        "",
        Time,
        "Clock for timestamps",
        "clock_gettime",
        |s, v| {
            s.clocksource = pick(v.trim(), CLOCKSOURCE)?;
            Ok(())
        }
    ),
    opt!(
        "gtod_reduce",
        K::Bool,
        "0",
        Time,
        "Disable latency and bandwidth timing (fewer clock reads)",
        "1",
        |s, v| {
            s.gtod_reduce = boolean(v)?;
            if s.gtod_reduce {
                s.disable_lat = true;
                s.disable_clat = true;
                s.disable_slat = true;
                s.disable_bw = true;
            }
            Ok(())
        }
    ),
    ign!(
        "gtod_cpu",
        K::Int,
        Time,
        "iolens has no time-keeping thread; clock reads are cheap"
    ),
    OptDef {
        since: "3.36",
        ..opt!(
            "job_start_clock_id",
            K::Int,
            "0",
            Time,
            "clock_gettime clock of the JSON's job_start, ms at the job's start (0 realtime, 1 monotonic, ...)",
            "1",
            |s, v| {
                s.job_start_clock_id = v
                    .trim()
                    .parse::<i32>()
                    .ok()
                    .filter(|id| crate::spec::LOG_CLOCK_IDS.contains(id))
                    .ok_or_else(|| {
                        format!(
                            "'{}' is not a clock id; allowed: {}",
                            v.trim(),
                            crate::spec::LOG_CLOCK_IDS.map(|i| i.to_string()).join(", ")
                        )
                    })?;
                Ok(())
            }
        )
    },
    // ---------------------------------------------------------------- files
    opt!(
        "directory",
        K::Str,
        "",
        Files,
        "Directory for the job's files (colon list)",
        "/tmp",
        |s, v| {
            s.directory = Some(v.to_string());
            Ok(())
        }
    ),
    OptDef {
        prio: -1,
        ..opt!(
            "filename",
            K::Str,
            "",
            Files,
            "File or device name(s), colon separated (\\: escapes)",
            "/tmp/x",
            |s, v| {
                if v.is_empty() {
                    return Err("filename must not be empty".into());
                }
                s.filename = Some(v.to_string());
                Ok(())
            }
        )
    },
    opt!(
        "filename_format",
        K::Str,
        "$jobname.$jobnum.$filenum",
        Files,
        "Pattern for generated file names",
        "$jobname.$filenum",
        |s, v| {
            s.filename_format = v.to_string();
            Ok(())
        }
    ),
    OptDef {
        status: Status::Partial("only matters in client/server mode, which iolens does not have"),
        ..opt!(
            "unique_filename",
            K::Bool,
            "1",
            Files,
            "Prefix files with the client's address (client mode only)",
            "1",
            |s, v| {
                s.unique_filename = boolean(v)?;
                Ok(())
            }
        )
    },
    OptDef {
        since: "3.41",
        ..opt!(
            "filetype",
            K::Enum(FILETYPE_NAMES),
            "none",
            Files,
            "Take every file of the job to be of this type (a path of another type is refused)",
            "file",
            |s, v| {
                s.filetype = pick(v.trim(), FILETYPE)?;
                Ok(())
            }
        )
    },
    uns!(
        "opendir",
        K::Str,
        Files,
        "recursively adding a directory's files is not implemented"
    ),
    ign!(
        "lockfile",
        K::Str,
        Files,
        "file locking between jobs is not implemented"
    ),
    opt!(
        "nrfiles" | "nr_files",
        K::Int,
        "1",
        Files,
        "Number of files per job",
        "1",
        |s, v| {
            s.nrfiles = uint(s, v, 1, 1 << 20)? as u32;
            Ok(())
        }
    ),
    OptDef {
        status: Status::Partial("all of a job's files stay open for the whole job"),
        ..opt!(
            "openfiles",
            K::Int,
            "nrfiles",
            Files,
            "Files kept open at once",
            "4",
            |s, v| {
                s.openfiles = Some(uint(s, v, 1, 1 << 20)? as u32);
                Ok(())
            }
        )
    },
    opt!(
        "file_service_type",
        K::Str,
        "roundrobin",
        Files,
        "How to pick the next file (roundrobin, sequential, random; :N I/Os per file)",
        "roundrobin",
        |s, v| {
            s.file_service_type = FileService::parse(v)?;
            Ok(())
        }
    ),
    ign!(
        "ioscheduler",
        K::Str,
        Files,
        "iolens does not change the device's I/O scheduler"
    ),
    OptDef {
        status: Status::Partial("files are always laid out one at a time, before any job starts"),
        ..opt!(
            "create_serialize",
            K::Bool,
            "1",
            Files,
            "Lay out files one job at a time",
            "1",
            |s, v| {
                s.create_serialize = boolean(v)?;
                Ok(())
            }
        )
    },
    opt!(
        "create_fsync",
        K::Bool,
        "1",
        Files,
        "fsync a file after laying it out",
        "1",
        |s, v| {
            s.create_fsync = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "create_on_open",
        K::Bool,
        "0",
        Files,
        "Create files when the job opens them, not before",
        "1",
        |s, v| {
            s.create_on_open = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "create_only",
        K::Bool,
        "0",
        Files,
        "Only lay out files, do no I/O",
        "1",
        |s, v| {
            s.create_only = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "allow_file_create",
        K::Bool,
        "1",
        Files,
        "Allow creating files that do not exist",
        "1",
        |s, v| {
            s.allow_file_create = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "allow_mounted_write",
        K::Bool,
        "0",
        Files,
        "Allow writing to a mounted (or in use) block device",
        "1",
        |s, v| {
            s.allow_mounted_write = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "pre_read",
        K::Bool,
        "0",
        Files,
        "Read the files into the page cache before the job",
        "1",
        |s, v| {
            s.pre_read = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "unlink",
        K::Bool,
        "0",
        Files,
        "Delete the job's files when it is done",
        "1",
        |s, v| {
            s.unlink = boolean(v)?;
            Ok(())
        }
    ),
    OptDef {
        status: Status::Partial("files are deleted when the job ends, not after each loop"),
        ..opt!(
            "unlink_each_loop",
            K::Bool,
            "0",
            Files,
            "Delete the job's files after each loop",
            "1",
            |s, v| {
                s.unlink_each_loop = boolean(v)?;
                Ok(())
            }
        )
    },
    // ---------------------------------------------------------------- zones
    opt!(
        "zonemode",
        K::Enum(ZONEMODE_NAMES),
        "none",
        Zones,
        "Zone mode (strided: zonesize bytes, then skip zoneskip; zbd: zoned block devices)",
        "strided",
        |s, v| {
            s.zonemode = pick(v.trim(), ZONEMODE)?;
            Ok(())
        }
    ),
    opt!(
        "zonerange",
        K::Size,
        "",
        Zones,
        "Size of the area a zone covers",
        "1m",
        |s, v| {
            s.zonerange = size(s, v)?;
            Ok(())
        }
    ),
    opt!(
        "zonesize",
        K::Size,
        "",
        Zones,
        "Bytes of I/O per zone before moving on",
        "1m",
        |s, v| {
            s.zonesize = size(s, v)?;
            Ok(())
        }
    ),
    ign!(
        "zonecapacity",
        K::Size,
        Zones,
        "zoned block devices are not supported"
    ),
    opt!(
        "zoneskip",
        K::Size,
        "0",
        Zones,
        "Bytes skipped after each zone",
        "1m",
        |s, v| {
            s.zoneskip = size(s, v)?;
            Ok(())
        }
    ),
    ign!(
        "read_beyond_wp",
        K::Bool,
        Zones,
        "zoned block devices are not supported"
    ),
    ign!(
        "max_open_zones",
        K::Int,
        Zones,
        "zoned block devices are not supported"
    ),
    ign!(
        "job_max_open_zones",
        K::Int,
        Zones,
        "zoned block devices are not supported"
    ),
    ign!(
        "ignore_zone_limits",
        K::Bool,
        Zones,
        "zoned block devices are not supported"
    ),
    ign!(
        "zone_reset_threshold",
        K::Float,
        Zones,
        "zoned block devices are not supported"
    ),
    ign!(
        "zone_reset_frequency",
        K::Float,
        Zones,
        "zoned block devices are not supported"
    ),
    OptDef {
        since: "3.40",
        ..ign!(
        "recover_zbd_write_error",
        K::Bool,
        Zones,
        "zoned block devices are not supported"
    )
    },
    OptDef {
        since: "3.42",
        ..ign!(
        "write_zone_remainders",
        K::Bool,
        Zones,
        "zoned block devices are not supported"
    )
    },
    // ---------------------------------------------------------------- I/O type
    opt!(
        "direct",
        K::Bool,
        "0",
        IoType,
        "Use O_DIRECT (bypass the page cache)",
        "1",
        |s, v| {
            s.direct = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "buffered",
        K::Bool,
        "1",
        IoType,
        "Use the page cache (the opposite of direct)",
        "0",
        |s, v| {
            s.direct = !boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "rw" | "readwrite",
        K::Enum(RW_NAMES),
        "read",
        IoType,
        "I/O pattern, with an optional :N offset modifier",
        "randread",
        apply_rw
    ),
    opt!(
        "rw_sequencer",
        K::Enum(RW_SEQUENCER_NAMES),
        "sequential",
        IoType,
        "How rw=...:N modifies offsets",
        "sequential",
        |s, v| {
            s.rw_sequencer = pick(v.trim(), RW_SEQUENCER)?;
            Ok(())
        }
    ),
    opt!(
        "unified_rw_reporting",
        K::Enum(UNIFIED_RW_NAMES),
        "none",
        IoType,
        "Report reads and writes together",
        "mixed",
        |s, v| {
            s.unified_rw_reporting = pick(v.trim(), UNIFIED_RW)?;
            Ok(())
        }
    ),
    opt!(
        "randrepeat" | "allrandrepeat",
        K::Bool,
        "1",
        IoType,
        "Same random sequence on every run",
        "1",
        |s, v| {
            s.randrepeat = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "randseed",
        K::Int,
        "",
        IoType,
        "Seed for the random generators",
        "1234",
        |s, v| {
            s.randseed = Some(uint(s, v, 0, u64::MAX)?);
            s.randrepeat = true;
            Ok(())
        }
    ),
    opt!(
        "fallocate",
        K::Enum(FALLOCATE_NAMES),
        "native",
        IoType,
        "Preallocate files when laying them out",
        "native",
        |s, v| {
            s.fallocate = pick(v.trim(), FALLOCATE)?;
            Ok(())
        }
    ),
    opt!(
        "fadvise_hint",
        K::Enum(FADVISE_NAMES),
        "1",
        IoType,
        "posix_fadvise hint for the access pattern",
        "1",
        |s, v| {
            s.fadvise_hint = pick(v.trim(), FADVISE)?;
            Ok(())
        }
    ),
    ign!(
        "write_hint",
        K::Str,
        IoType,
        "write lifetime hints are not implemented"
    ),
    opt!(
        "offset" | "fileoffset",
        K::SizeOrPct,
        "0",
        IoType,
        "Start I/O at this offset (or percentage)",
        "4k",
        |s, v| {
            let o = value::parse_size_or_pct(v, s.kb_base).map_err(e)?;
            if let value::SizeOrPct::Percent(p) = o {
                if p >= 100.0 {
                    return Err("offset percentage must be below 100%".into());
                }
            }
            s.offset = o;
            Ok(())
        }
    ),
    opt!(
        "offset_align",
        K::Size,
        "0",
        IoType,
        "Align a percentage offset to this",
        "4k",
        |s, v| {
            let a = size(s, v)?;
            s.offset_align = if a == 0 { None } else { Some(a) };
            Ok(())
        }
    ),
    opt!(
        "offset_increment",
        K::SizeOrPct,
        "0",
        IoType,
        "Each clone's offset is offset + N x this",
        "1m",
        |s, v| {
            s.offset_increment = value::parse_size_or_pct(v, s.kb_base).map_err(e)?;
            Ok(())
        }
    ),
    opt!(
        "number_ios",
        K::Int,
        "",
        IoType,
        "Stop after this many I/Os",
        "100",
        |s, v| {
            let n = uint(s, v, 0, u64::MAX)?;
            s.number_ios = if n == 0 { None } else { Some(n) };
            Ok(())
        }
    ),
    opt!(
        "fsync",
        K::Int,
        "0",
        IoType,
        "fsync every N writes",
        "32",
        |s, v| {
            s.fsync = uint(s, v, 0, u64::MAX)?;
            Ok(())
        }
    ),
    opt!(
        "fdatasync",
        K::Int,
        "0",
        IoType,
        "fdatasync every N writes",
        "32",
        |s, v| {
            s.fdatasync = uint(s, v, 0, u64::MAX)?;
            Ok(())
        }
    ),
    ign!(
        "write_barrier",
        K::Int,
        IoType,
        "barrier writes are not implemented"
    ),
    uns!(
        "sync_file_range",
        K::Str,
        IoType,
        "sync_file_range is not implemented; use fsync or fdatasync"
    ),
    opt!(
        "overwrite",
        K::Bool,
        "0",
        IoType,
        "Lay out files before writing so writes overwrite",
        "1",
        |s, v| {
            s.overwrite = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "end_fsync",
        K::Bool,
        "0",
        IoType,
        "fsync the files at the end of the job",
        "1",
        |s, v| {
            s.end_fsync = boolean(v)?;
            Ok(())
        }
    ),
    OptDef {
        since: "3.42",
        ..opt!(
            "end_syncfs",
            K::Bool,
            "0",
            IoType,
            "At the end of the writes, syncfs each filesystem of the job's files (one call each)",
            "1",
            |s, v| {
                s.end_syncfs = boolean(v)?;
                Ok(())
            }
        )
    },
    opt!(
        "fsync_on_close",
        K::Bool,
        "0",
        IoType,
        "fsync each file when it is closed",
        "1",
        |s, v| {
            s.fsync_on_close = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "rwmixread",
        K::Int,
        "50",
        IoType,
        "Percentage of reads in mixed workloads",
        "70",
        |s, v| {
            s.rwmixread = uint(s, v, 0, 100)? as u32;
            Ok(())
        }
    ),
    opt!(
        "rwmixwrite",
        K::Int,
        "50",
        IoType,
        "Percentage of writes in mixed workloads",
        "30",
        |s, v| {
            s.rwmixread = 100 - uint(s, v, 0, 100)? as u32;
            Ok(())
        }
    ),
    opt!(
        "random_distribution",
        K::Str,
        "random",
        IoType,
        "Distribution of random offsets (random, zipf, pareto, normal, zoned, zoned_abs)",
        "zipf:1.2",
        apply_random_distribution
    ),
    OptDef {
        since: "after 3.42",
        ..opt!(
        "random_sequence_stride",
        K::Bool,
        "0",
        IoType,
        "random_distribution=sequence: advance the block group after each cycle",
        "1",
        |s, v| {
            s.random_sequence_stride = boolean(v)?;
            Ok(())
        }
    )
    },
    opt!(
        "percentage_random",
        K::PerDirInt,
        "100",
        IoType,
        "Percentage of random offsets (the rest sequential)",
        "50",
        |s, v| {
            let cur = s.percentage_random.map(u64::from);
            s.percentage_random = per_dir_uints(s, v, cur, 100)?.map(|x| x as u32);
            Ok(())
        }
    ),
    opt!(
        "norandommap",
        K::Flag,
        "0",
        IoType,
        "Do not track which blocks were done; offsets may repeat",
        "1",
        |s, v| {
            s.norandommap = boolean(v)?;
            Ok(())
        }
    ),
    ign!(
        "softrandommap",
        K::Bool,
        IoType,
        "iolens's random map always fits in memory"
    ),
    opt!(
        "random_generator",
        K::Enum(RANDOM_GENERATOR_NAMES),
        "tausworthe",
        IoType,
        "Generator of random offsets",
        "lfsr",
        |s, v| {
            s.random_generator = pick(v.trim(), RANDOM_GENERATOR)?;
            Ok(())
        }
    ),
    OptDef {
        since: "3.41",
        ..opt!(
            "sprandom",
            K::Bool,
            "0",
            IoType,
            "Precondition an SSD to random-write steady state in one pass (SPRandom: writes the physical capacity once, leaving each region as invalid as at steady state)",
            "1",
            |s, v| {
                s.sprandom = boolean(v)?;
                Ok(())
            }
        )
    },
    OptDef {
        since: "3.41",
        ..opt!(
            "spr_num_regions",
            K::Int,
            "100",
            IoType,
            "sprandom: regions of the physical capacity, each with its steady-state share of invalid blocks",
            "400",
            |s, v| {
                s.spr_num_regions = uint(s, v, 1, u32::MAX as u64)? as u32;
                Ok(())
            }
        )
    },
    OptDef {
        since: "3.41",
        ..opt!(
            "spr_op",
            K::Float,
            "0.15",
            IoType,
            "sprandom: the SSD's over-provisioning ratio, between 0 and 1",
            "0.21",
            |s, v| {
                let op: f64 = v
                    .trim()
                    .parse()
                    .map_err(|_| format!("bad value '{}': expected a number between 0 and 1", v.trim()))?;
                if !(op > 0.0 && op < 1.0) {
                    return Err(format!("spr_op={op} must be between 0 and 1"));
                }
                s.spr_op = op;
                Ok(())
            }
        )
    },
    OptDef {
        since: "3.42",
        ..opt!(
            "spr_cs",
            K::Size,
            "0",
            IoType,
            "sprandom: the SSD's cache size; invalidating writes then wait one region",
            "64m",
            |s, v| {
                s.spr_cs = size(s, v)?;
                Ok(())
            }
        )
    },
    // ---------------------------------------------------------------- block size
    opt!(
        "bs" | "blocksize",
        K::PerDirSize,
        "4k",
        BlockSize,
        "Block size (read,write,trim)",
        "8k",
        |s, v| {
            s.bs = per_dir_sizes(s, v, s.bs)?;
            Ok(())
        }
    ),
    opt!(
        "bsrange" | "blocksize_range",
        K::Range,
        "",
        BlockSize,
        "Block size ranges lo-hi (read,write,trim)",
        "1k-4k",
        |s, v| {
            nonempty(v)?;
            let r = value::parse_range_per_dir(v, s.kb_base).map_err(e)?;
            for (i, x) in r.iter().enumerate() {
                if x.is_some() {
                    s.bsrange[i] = *x;
                }
            }
            Ok(())
        }
    ),
    opt!(
        "bssplit",
        K::Str,
        "",
        BlockSize,
        "Weighted block sizes, e.g. 4k/10:64k/50:32k/40 (read,write,trim)",
        "4k/50:64k/50",
        |s, v| {
            let r = value::parse_bssplit(v, s.kb_base).map_err(e)?;
            for (i, x) in r.into_iter().enumerate() {
                if x.is_some() {
                    s.bssplit[i] = x;
                }
            }
            Ok(())
        }
    ),
    opt!(
        "bs_unaligned" | "blocksize_unaligned",
        K::Flag,
        "0",
        BlockSize,
        "Sizes in bsrange need not be multiples of the minimum",
        "1",
        |s, v| {
            s.bs_unaligned = boolean(v)?;
            Ok(())
        }
    ),
    ign!(
        "bs_is_seq_rand",
        K::Bool,
        BlockSize,
        "per-direction block sizes always mean read,write,trim in iolens"
    ),
    opt!(
        "ba" | "blockalign",
        K::PerDirSize,
        "bs",
        BlockSize,
        "Alignment of random offsets (read,write,trim)",
        "4k",
        |s, v| {
            let cur = s.ba.map(|x| x.unwrap_or(0));
            let n = per_dir_sizes(s, v, cur)?;
            s.ba = n.map(|x| if x == 0 { None } else { Some(x) });
            Ok(())
        }
    ),
    // ---------------------------------------------------------------- buffers
    opt!(
        "zero_buffers",
        K::Flag,
        "0",
        Buffers,
        "Fill write buffers with zeroes",
        "1",
        |s, v| {
            s.zero_buffers = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "refill_buffers",
        K::Flag,
        "0",
        Buffers,
        "Refill write buffers before every write",
        "1",
        |s, v| {
            s.refill_buffers = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "scramble_buffers",
        K::Bool,
        "1",
        Buffers,
        "Scramble buffer contents cheaply to defeat dedupe",
        "1",
        |s, v| {
            s.scramble_buffers = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "buffer_compress_percentage",
        K::Int,
        "0",
        Buffers,
        "Make write buffers compressible by this percentage",
        "50",
        |s, v| {
            s.buffer_compress_percentage = uint(s, v, 0, 100)? as u32;
            Ok(())
        }
    ),
    opt!(
        "buffer_compress_chunk",
        K::Size,
        "512",
        Buffers,
        "Granularity of compressible regions",
        "4k",
        |s, v| {
            s.buffer_compress_chunk = uint(s, v, 1, u32::MAX as u64)?;
            Ok(())
        }
    ),
    opt!(
        "buffer_pattern",
        K::Str,
        "",
        Buffers,
        "Fill write buffers with this pattern (0x.., \"text\", numbers)",
        "0xdeadbeef",
        |s, v| {
            s.buffer_pattern = Some(parse_pattern(v)?);
            Ok(())
        }
    ),
    opt!(
        "dedupe_percentage",
        K::Int,
        "0",
        Buffers,
        "Percentage of write buffers that repeat earlier ones",
        "30",
        |s, v| {
            s.dedupe_percentage = uint(s, v, 0, 100)? as u32;
            if s.dedupe_percentage > 0 {
                s.refill_buffers = true;
            }
            Ok(())
        }
    ),
    ign!(
        "dedupe_mode",
        K::Str,
        Buffers,
        "dedupe buffers always repeat earlier writes (fio's default 'repeat')"
    ),
    ign!(
        "dedupe_working_set_percentage",
        K::Int,
        Buffers,
        "dedupe working sets are not implemented"
    ),
    ign!(
        "dedupe_global",
        K::Bool,
        Buffers,
        "dedupe is per job in iolens"
    ),
    opt!(
        "invalidate",
        K::Bool,
        "1",
        Buffers,
        "Drop the files' page cache before the job",
        "1",
        |s, v| {
            s.invalidate = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "sync",
        K::Enum(SYNC_NAMES),
        "none",
        IoType,
        "Open files with O_SYNC or O_DSYNC",
        "sync",
        |s, v| {
            s.sync = pick(v.trim(), SYNC)?;
            Ok(())
        }
    ),
    ign!(
        "mem" | "iomem",
        K::Str,
        Buffers,
        "buffers are always anonymous memory aligned for O_DIRECT"
    ),
    opt!(
        "mem_align" | "iomem_align",
        K::Size,
        "0",
        Buffers,
        "Extra alignment of I/O buffers",
        "4k",
        |s, v| {
            s.mem_align = size(s, v)?;
            Ok(())
        }
    ),
    ign!(
        "hugepage-size",
        K::Size,
        Buffers,
        "huge page buffers are not implemented"
    ),
    ign!(
        "lockmem",
        K::Size,
        Buffers,
        "memory locking is not implemented"
    ),
    // ---------------------------------------------------------------- size
    opt!(
        "size",
        K::SizeOrPct,
        "",
        Size,
        "Total size of the job's files (or percentage of the device)",
        "1g",
        |s, v| {
            s.size = Some(value::parse_size_or_pct(v, s.kb_base).map_err(e)?);
            Ok(())
        }
    ),
    opt!(
        "io_size" | "io_limit",
        K::Size,
        "size",
        Size,
        "Amount of I/O to do (default: size)",
        "1g",
        |s, v| {
            let n = size(s, v)?;
            s.io_size = if n == 0 { None } else { Some(n) };
            Ok(())
        }
    ),
    opt!(
        "filesize",
        K::Range,
        "size/nrfiles",
        Size,
        "Size of each file (a range picks random sizes)",
        "1m",
        |s, v| {
            s.filesize = Some(value::parse_size_range(v, s.kb_base).map_err(e)?);
            Ok(())
        }
    ),
    ign!(
        "file_append",
        K::Bool,
        Size,
        "appending to files is not implemented"
    ),
    opt!(
        "fill_device" | "fill_fs",
        K::Bool,
        "0",
        Size,
        "Write until the device or filesystem is full",
        "1",
        |s, v| {
            s.fill_device = boolean(v)?;
            Ok(())
        }
    ),
    // ---------------------------------------------------------------- engine
    OptDef {
        prio: 1,
        ..opt!(
            "ioengine",
            K::Enum(IOENGINE_NAMES),
            "psync",
            Engine,
            "I/O engine",
            "libaio",
            apply_ioengine
        )
    },
    OptDef {
        engines: CMDPRIO,
        ..opt!(
            "cmdprio_percentage",
            K::PerDirInt,
            "0",
            Engine,
            "Share of I/Os, percent, issued with the command priority (reads,writes)",
            "25",
            |s, v| {
                let cur = s.cmdprio.percentage.map(u64::from);
                let both = per_dir_uints(s, v, [cur[0], cur[1], cur[1]], 100)?;
                s.cmdprio.percentage = [both[0] as u8, both[1] as u8];
                Ok(())
            }
        )
    },
    OptDef {
        engines: CMDPRIO,
        ..opt!(
            "cmdprio_class",
            K::PerDirInt,
            "",
            Engine,
            "I/O priority class of prioritized I/Os (1 realtime, 2 best effort, 3 idle; reads,writes)",
            "1",
            |s, v| {
                let cur = s.cmdprio.class.map(|c| u64::from(c.unwrap_or(1)));
                let both = per_dir_uints_in(s, v, [cur[0], cur[1], cur[1]], 1, 3)?;
                s.cmdprio.class = [Some(both[0] as u16), Some(both[1] as u16)];
                Ok(())
            }
        )
    },
    OptDef {
        since: "3.36",
        engines: CMDPRIO,
        ..ign!(
        "cmdprio_hint",
        K::PerDirInt,
        Engine,
        "I/O priority hints are not implemented"
    )
    },
    OptDef {
        engines: CMDPRIO,
        ..opt!(
            "cmdprio",
            K::PerDirInt,
            "0",
            Engine,
            "I/O priority level of prioritized I/Os (0 highest .. 7; reads,writes)",
            "3",
            |s, v| {
                let cur = s.cmdprio.level.map(u64::from);
                let both = per_dir_uints(s, v, [cur[0], cur[1], cur[1]], 7)?;
                s.cmdprio.level = [both[0] as u16, both[1] as u16];
                Ok(())
            }
        )
    },
    OptDef {
        engines: CMDPRIO,
        ..opt!(
            "cmdprio_bssplit",
            K::Str,
            "",
            Engine,
            "Share of I/Os with a priority per block size: bs/pct[/class/level]:...[,writes]",
            "4k/10:64k/50/1/0",
            |s, v| {
                let (split, hinted) = crate::cmdprio::parse_bssplit(v, s.kb_base).map_err(e)?;
                if hinted {
                    s.warnings.push(format!(
                        "job '{}': cmdprio_bssplit's priority hints are not sent (its I/Os carry the class and level only)",
                        s.name
                    ));
                }
                s.cmdprio.bssplit = Some(split);
                Ok(())
            }
        )
    },
    OptDef {
        engines: URING,
        ..opt!(
        "fixedbufs",
        K::Flag,
        "0",
        Engine,
        "io_uring: register the I/O buffers with the kernel",
        "1",
        |s, v| {
            s.fixedbufs = boolean(v)?;
            Ok(())
        }
    )
    },
    OptDef {
        engines: URING,
        ..opt!(
        "nonvectored",
        K::Int,
        "1",
        Engine,
        "io_uring: use non-vectored read/write opcodes",
        "1",
        |s, v| {
            s.nonvectored = v.trim() != "0";
            Ok(())
        }
    )
    },
    OptDef {
        engines: URING,
        ..opt!(
        "force_async",
        K::Int,
        "0",
        Engine,
        "io_uring: set IOSQE_ASYNC on every Nth request",
        "4",
        |s, v| {
            s.force_async = uint(s, v, 0, u32::MAX as u64)? as u32;
            Ok(())
        }
    )
    },
    OptDef {
        engines: URING,
        ..opt!(
        "registerfiles",
        K::Flag,
        "0",
        Engine,
        "io_uring: register the files with the kernel",
        "1",
        |s, v| {
            s.registerfiles = boolean(v)?;
            Ok(())
        }
    )
    },
    OptDef {
        engines: SQPOLL,
        ..opt!(
        "sqthread_poll",
        K::Flag,
        "0",
        Engine,
        "io_uring: a kernel thread polls the submission queue",
        "1",
        |s, v| {
            s.sqthread_poll = boolean(v)?;
            Ok(())
        }
    )
    },
    OptDef {
        engines: URING,
        ..opt!(
        "sqthread_poll_cpu",
        K::Int,
        "",
        Engine,
        "io_uring: CPU of the submission polling thread",
        "0",
        |s, v| {
            s.sqthread_poll_cpu = Some(uint(s, v, 0, 65535)? as u32);
            Ok(())
        }
    )
    },
    OptDef {
        engines: URING,
        ..opt!(
        "cmd_type",
        K::Enum(&["nvme"]),
        "nvme",
        Engine,
        "io_uring_cmd: the passthrough command set (NVMe)",
        "nvme",
        |_s, v| match v.trim() {
            "nvme" => Ok(()),
            "bsg" => Err(
                "cmd_type=bsg (SCSI passthrough) is not supported by iolens; cmd_type=nvme is".into(),
            ),
            other => Err(format!("bad value '{other}': allowed values are nvme")),
        }
    )
    },
    OptDef {
        since: "after 3.42",
        ..eng!("io_uring_cmd", "cdb_len")
    },
    OptDef {
        engines: HIPRI,
        ..opt!(
        "hipri",
        K::Flag,
        "0",
        Engine,
        "Polled completions (io_uring IOPOLL, pvsync2 RWF_HIPRI)",
        "1",
        |s, v| {
            s.hipri = boolean(v)?;
            Ok(())
        }
    )
    },
    OptDef {
        engines: LIBAIO,
        ..ign!(
        "userspace_reap",
        K::Flag,
        Engine,
        "libaio completions are always read from the ring in user space first, as it asks"
    )
    },
    OptDef {
        engines: PVSYNC2,
        ..ign!(
        "hipri_percentage",
        K::Int,
        Engine,
        "pvsync2: hipri applies to every I/O or none"
    )
    },
    OptDef {
        engines: NOWAIT,
        ..ign!("nowait", K::Bool, Engine, "RWF_NOWAIT is not implemented")
    },
    OptDef {
        engines: UNCACHED,
        ..opt!(
        "uncached",
        K::Int,
        "0",
        Engine,
        "pvsync2, io_uring: buffered I/O that leaves no pages in the page cache (RWF_DONTCACHE, Linux 6.14; fio 3.40's meaning)",
        "1",
        |s, v| {
            s.uncached = uint(s, v, 0, u32::MAX as u64)? != 0;
            Ok(())
        }
    )
    },
    opt!(
        "atomic",
        K::Bool,
        "0",
        Engine,
        "pvsync2, libaio, io_uring: writes with torn-write protection (RWF_ATOMIC, Linux 6.11; fio 3.38's meaning)",
        "1",
        |s, v| {
            s.atomic = boolean(v)?;
            Ok(())
        }
    ),
    OptDef {
        since: "3.39",
        engines: LIBAIO,
        ..opt!(
            "libaio_vectored",
            K::Bool,
            "0",
            Engine,
            "libaio: submit vectored reads and writes (IOCB_CMD_PREADV/PWRITEV)",
            "1",
            |s, v| {
                s.libaio_vectored = boolean(v)?;
                Ok(())
            }
        )
    },
    OptDef {
        since: "3.34",
        ..eng!("io_uring_cmd", "fdp")
    },
    OptDef {
        since: "3.38",
        ..eng!("io_uring_cmd", "dataplacement")
    },
    OptDef {
        since: "3.36",
        ..eng!("io_uring_cmd", "plid_select" | "fdp_pli_select")
    },
    OptDef {
        since: "3.34",
        ..eng!("io_uring_cmd", "plids" | "fdp_pli")
    },
    OptDef {
        since: "3.38",
        ..eng!("io_uring_cmd", "dp_scheme")
    },
    OptDef {
        since: "3.36",
        ..eng!("io_uring_cmd", "md_per_io_size")
    },
    OptDef {
        since: "3.36",
        ..eng!("io_uring_cmd", "pi_act")
    },
    OptDef {
        since: "3.36",
        ..eng!("io_uring_cmd", "pi_chk")
    },
    OptDef {
        since: "3.36",
        ..eng!("io_uring_cmd", "apptag")
    },
    OptDef {
        since: "3.36",
        ..eng!("io_uring_cmd", "apptag_mask")
    },
    OptDef {
        since: "3.37",
        ..eng!("io_uring_cmd", "num_range")
    },
    eng!("cpuio", "cpuload"),
    eng!("cpuio", "cpuchunks"),
    eng!("cpuio", "cpumode"),
    eng!("cpuio", "exit_on_io_done"),
    eng!("libhdfs", "namenode"),
    eng!("libhdfs", "hdfsdirectory"),
    eng!("net", "port"),
    eng!("net", "hostname"),
    eng!("net", "interface"),
    eng!("net", "ttl"),
    eng!("net", "nodelay"),
    eng!("net", "protocol" | "proto"),
    eng!("net", "listen"),
    eng!("net", "pingpong"),
    eng!("net", "window_size"),
    eng!("net", "mss"),
    eng!("e4defrag", "donorname"),
    eng!("e4defrag", "inplace"),
    eng!("rbd", "clustername"),
    eng!("rbd", "rbdname"),
    eng!("rbd", "clientname"),
    eng!("rbd", "conf"),
    eng!("rbd", "busy_poll"),
    eng!("rbd", "touch_objects"),
    OptDef {
        since: "3.42",
        ..eng!("rbd", "rbd_encryption_format")
    },
    OptDef {
        since: "3.42",
        ..eng!("rbd", "rbd_encryption_passphrase")
    },
    eng!("dfs", "pool"),
    eng!("dfs", "cont"),
    eng!("dfs", "chunk_size"),
    eng!("dfs", "object_class"),
    eng!("mtd", "skip_bad"),
    eng!("rdma", "verb"),
    eng!("rdma", "bindname"),
    OptDef {
        engines: FILESTAT,
        ..opt!(
        "stat_type",
        K::Enum(STAT_TYPE_NAMES),
        "stat",
        Engine,
        "filestat, dirstat: the system call that looks each file up",
        "statx",
        |s, v| {
            s.stat_type = pick(v.trim(), STAT_TYPE)?;
            Ok(())
        }
    )
    },
    OptDef {
        engines: FUA,
        ..opt!(
        "readfua",
        K::Bool,
        "0",
        Engine,
        "io_uring_cmd: reads with Force Unit Access",
        "1",
        |s, v| {
            s.readfua = boolean(v)?;
            Ok(())
        }
    )
    },
    OptDef {
        engines: FUA,
        ..opt!(
        "writefua",
        K::Bool,
        "0",
        Engine,
        "io_uring_cmd: writes with Force Unit Access",
        "1",
        |s, v| {
            s.writefua = boolean(v)?;
            Ok(())
        }
    )
    },
    eng!("sg", "sg_write_mode"),
    eng!("sg", "stream_id"),
    OptDef {
        since: "3.38",
        engines: URING,
        ..opt!(
            "write_mode",
            K::Enum(CMD_WRITE_MODE_NAMES),
            "write",
            Engine,
            "io_uring_cmd: the NVMe command writes are (Write, Write Uncorrectable, Write Zeroes, Verify)",
            "zeroes",
            |s, v| {
                s.cmd_write_mode = pick(v.trim(), CMD_WRITE_MODE)?;
                Ok(())
            }
        )
    },
    OptDef {
        since: "after 3.42",
        ..eng!("io_uring_cmd", "verify_bytchk")
    },
    OptDef {
        since: "after 3.42",
        ..eng!("io_uring_cmd", "read_mode")
    },
    OptDef {
        since: "3.38",
        engines: URING,
        ..opt!(
            "verify_mode",
            K::Enum(&["read"]),
            "read",
            Engine,
            "io_uring_cmd: the NVMe command that reads data back to verify it",
            "read",
            |_s, v| match v.trim() {
                "read" => Ok(()),
                "compare" => Err(
                    "verify_mode=compare (NVMe Compare commands) is not supported by iolens; verify_mode=read is".into(),
                ),
                other => Err(format!("bad value '{other}': allowed values are read")),
            }
        )
    },
    eng!("http", "http_host"),
    eng!("http", "http_user"),
    eng!("http", "http_pass"),
    eng!("http", "https"),
    eng!("http", "http_mode"),
    eng!("http", "http_s3_region"),
    eng!("http", "http_s3_key"),
    eng!("http", "http_s3_keyid"),
    OptDef {
        since: "3.41",
        ..eng!("http", "http_s3_security_token")
    },
    eng!("http", "http_s3_sse_customer_key"),
    eng!("http", "http_s3_sse_customer_algorithm"),
    eng!("http", "http_s3_storage_class"),
    eng!("http", "http_swift_auth_token"),
    eng!("http", "http_verbose"),
    OptDef {
        since: "3.41",
        ..eng!("http", "http_object_mode")
    },
    eng!("nbd", "uri"),
    eng!("libcufile", "gpu_dev_ids"),
    eng!("libcufile", "cuda_io"),
    OptDef {
        since: "after 3.42",
        ..eng!("libhipfile", "rocm_io")
    },
    eng!("nfs", "nfs_url"),
    eng!("exec", "program"),
    eng!("exec", "arguments"),
    eng!("exec", "grace_time"),
    eng!("exec", "std_redirect"),
    eng!("xnvme", "xnvme_async"),
    eng!("xnvme", "xnvme_sync"),
    eng!("xnvme", "xnvme_admin"),
    eng!("xnvme", "xnvme_dev_nsid"),
    OptDef {
        since: "3.34",
        ..eng!("xnvme", "xnvme_dev_subnqn")
    },
    OptDef {
        since: "3.34",
        ..eng!("xnvme", "xnvme_mem")
    },
    eng!("xnvme", "xnvme_iovec"),
    OptDef {
        since: "3.34",
        ..eng!("libblkio", "libblkio_driver")
    },
    OptDef {
        since: "3.34",
        ..eng!("libblkio", "libblkio_path")
    },
    OptDef {
        since: "3.34",
        ..eng!("libblkio", "libblkio_pre_connect_props")
    },
    OptDef {
        since: "3.34",
        ..eng!("libblkio", "libblkio_num_entries")
    },
    OptDef {
        since: "3.34",
        ..eng!("libblkio", "libblkio_queue_size")
    },
    OptDef {
        since: "3.34",
        ..eng!("libblkio", "libblkio_pre_start_props")
    },
    OptDef {
        since: "3.34",
        ..eng!("libblkio", "libblkio_vectored")
    },
    OptDef {
        since: "3.34",
        ..eng!("libblkio", "libblkio_write_zeroes_on_trim")
    },
    OptDef {
        since: "3.34",
        ..eng!("libblkio", "libblkio_wait_mode")
    },
    OptDef {
        since: "3.34",
        ..eng!("libblkio", "libblkio_force_enable_completion_eventfd")
    },
    eng!("windowsaio", "no_completion_thread"),
    // ---------------------------------------------------------------- depth
    opt!(
        "iodepth",
        K::Int,
        "1",
        Depth,
        "I/Os in flight per job (sync engines: always 1)",
        "32",
        |s, v| {
            s.iodepth = uint(s, v, 1, 65536)? as u32;
            Ok(())
        }
    ),
    opt!(
        "iodepth_batch_submit" | "iodepth_batch",
        K::Int,
        "1",
        Depth,
        "I/Os submitted per call",
        "1",
        |s, v| {
            s.iodepth_batch_submit = uint(s, v, 0, 65536)? as u32;
            Ok(())
        }
    ),
    opt!(
        "iodepth_batch_complete_min" | "iodepth_batch_complete",
        K::Int,
        "1",
        Depth,
        "Least completions to wait for per reap",
        "1",
        |s, v| {
            s.iodepth_batch_complete_min = uint(s, v, 0, 65536)? as u32;
            Ok(())
        }
    ),
    opt!(
        "iodepth_batch_complete_max",
        K::Int,
        "iodepth_batch_complete_min",
        Depth,
        "Most completions to reap per call",
        "8",
        |s, v| {
            s.iodepth_batch_complete_max = uint(s, v, 0, 65536)? as u32;
            Ok(())
        }
    ),
    opt!(
        "iodepth_low",
        K::Int,
        "iodepth",
        Depth,
        "Refill the queue when it drains to this depth",
        "8",
        |s, v| {
            s.iodepth_low = uint(s, v, 0, 65536)? as u32;
            Ok(())
        }
    ),
    opt!(
        "serialize_overlap",
        K::Bool,
        "0",
        Depth,
        "Never have two in-flight I/Os of a job overlap: wait for the earlier one",
        "1",
        |s, v| {
            s.serialize_overlap = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "io_submit_mode",
        K::Enum(SUBMIT_MODE_NAMES),
        "inline",
        Depth,
        "inline: the job's thread submits and reaps; offload: iodepth submitter threads run its synchronous engine",
        "offload",
        |s, v| {
            s.io_submit_mode = pick(v.trim(), SUBMIT_MODE)?;
            Ok(())
        }
    ),
    // ---------------------------------------------------------------- rate
    OptDef {
        since: "3.37",
        ..opt!(
            "thinkcycles",
            K::Int,
            "0",
            Rate,
            "Spin this many CPU cycles after each read or write, before thinktime (time-stamp counter cycles on x86-64)",
            "100000",
            |s, v| {
                s.thinkcycles = uint(s, v, 0, u32::MAX as u64)?;
                Ok(())
            }
        )
    },
    opt!(
        "thinktime",
        K::Time,
        "0",
        Rate,
        "Pause this long (µs default) after thinktime_blocks I/Os",
        "100",
        |s, v| {
            s.thinktime = time(v, TimeUnit::Usec)?;
            Ok(())
        }
    ),
    opt!(
        "thinktime_spin",
        K::Time,
        "0",
        Rate,
        "Spin (busy) this part of thinktime",
        "50",
        |s, v| {
            s.thinktime_spin = time(v, TimeUnit::Usec)?;
            Ok(())
        }
    ),
    opt!(
        "thinktime_blocks",
        K::Int,
        "1",
        Rate,
        "I/Os between think times",
        "1",
        |s, v| {
            s.thinktime_blocks = uint(s, v, 1, u64::MAX)?;
            Ok(())
        }
    ),
    ign!(
        "thinktime_blocks_type",
        K::Str,
        Rate,
        "thinktime_blocks always counts completed I/Os"
    ),
    ign!(
        "thinktime_iotime",
        K::Time,
        Rate,
        "timed think time windows are not implemented"
    ),
    opt!(
        "rate",
        K::PerDirSize,
        "",
        Rate,
        "Bandwidth cap in bytes/s (read,write,trim)",
        "10m",
        |s, v| {
            s.rate = per_dir_sizes(s, v, s.rate)?;
            Ok(())
        }
    ),
    opt!(
        "rate_min" | "ratemin",
        K::PerDirSize,
        "",
        Rate,
        "Fail the job if bandwidth drops below this",
        "1m",
        |s, v| {
            s.rate_min = per_dir_sizes(s, v, s.rate_min)?;
            Ok(())
        }
    ),
    opt!(
        "rate_iops",
        K::PerDirInt,
        "",
        Rate,
        "IOPS cap (read,write,trim)",
        "1000",
        |s, v| {
            s.rate_iops = per_dir_uints(s, v, s.rate_iops, u64::MAX)?;
            Ok(())
        }
    ),
    opt!(
        "rate_iops_min",
        K::PerDirInt,
        "",
        Rate,
        "Fail the job if IOPS drop below this",
        "100",
        |s, v| {
            s.rate_iops_min = per_dir_uints(s, v, s.rate_iops_min, u64::MAX)?;
            Ok(())
        }
    ),
    opt!(
        "rate_process",
        K::Enum(RATE_PROCESS_NAMES),
        "linear",
        Rate,
        "Spacing of rate-limited I/Os",
        "linear",
        |s, v| {
            s.rate_process = pick(v.trim(), RATE_PROCESS)?;
            Ok(())
        }
    ),
    ign!(
        "rate_ignore_thinktime",
        K::Bool,
        Rate,
        "rate limits always include think time"
    ),
    opt!(
        "rate_cycle",
        K::Int,
        "1000",
        Rate,
        "Averaging window in ms for rate_min",
        "500",
        |s, v| {
            s.rate_cycle = Duration::from_millis(uint(s, v, 1, u32::MAX as u64)?);
            Ok(())
        }
    ),
    OptDef {
        status: Status::Partial(
            "echoed in the report; fio's latency-target queue-depth search is not implemented",
        ),
        ..opt!(
            "latency_target",
            K::Time,
            "0",
            Rate,
            "Latency target (printed; the depth search is not implemented)",
            "10ms",
            |s, v| {
                s.latency_target = time(v, TimeUnit::Usec)?;
                Ok(())
            }
        )
    },
    OptDef {
        status: Status::Partial(
            "echoed in the report; fio's latency-target queue-depth search is not implemented",
        ),
        ..opt!(
            "latency_window",
            K::Time,
            "0",
            Rate,
            "Window for latency_target",
            "1s",
            |s, v| {
                s.latency_window = time(v, TimeUnit::Usec)?;
                Ok(())
            }
        )
    },
    OptDef {
        status: Status::Partial(
            "echoed in the report; fio's latency-target queue-depth search is not implemented",
        ),
        ..opt!(
            "latency_percentile",
            K::Float,
            "100",
            Rate,
            "Percentile for latency_target",
            "99",
            |s, v| {
                let p: f64 = v
                    .trim()
                    .parse()
                    .map_err(|_| format!("bad percentile '{v}'"))?;
                if !(0.0..=100.0).contains(&p) {
                    return Err("latency_percentile must be in 0..100".into());
                }
                s.latency_percentile = p;
                Ok(())
            }
        )
    },
    ign!(
        "latency_run",
        K::Bool,
        Rate,
        "the latency_target depth search is not implemented"
    ),
    ign!(
        "max_latency",
        K::Time,
        Rate,
        "failing a job on a latency ceiling is not implemented"
    ),
    // ---------------------------------------------------------------- iolog
    opt!(
        "write_iolog",
        K::Str,
        "",
        Iolog,
        "Write the issued I/O to this file (fio's iolog version 3, for read_iolog)",
        "job.iolog",
        |s, v| {
            nonempty(v)?;
            s.logs.write_iolog = Some(v.trim().to_string());
            Ok(())
        }
    ),
    opt!(
        "read_iolog",
        K::Str,
        "",
        Iolog,
        "Replay the I/O of this fio iolog (version 2 or 3) or blktrace binary trace",
        "job.iolog",
        |s, v| {
            nonempty(v)?;
            s.logs.read_iolog = Some(v.trim().to_string());
            Ok(())
        }
    ),
    opt!(
        "read_iolog_chunked",
        K::Bool,
        "0",
        Iolog,
        "Read the iolog while replaying it (memory stays bounded for long logs)",
        "1",
        |s, v| {
            s.logs.read_chunked = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "merge_blktrace_file",
        K::Str,
        "",
        Iolog,
        "Merge the blktrace traces of read_iolog (a:b) into this file, by time, and replay it",
        "merged.bin",
        |s, v| {
            s.logs.merge_blktrace_file = Some(v.trim().to_string());
            Ok(())
        }
    ),
    opt!(
        "merge_blktrace_scalars",
        K::FloatList,
        "",
        Iolog,
        "Per merged trace, percent of its times (50: twice as fast)",
        "50:100",
        |s, v| {
            s.logs.merge_blktrace_scalars = whole_list(v)?;
            Ok(())
        }
    ),
    opt!(
        "merge_blktrace_iters",
        K::FloatList,
        "",
        Iolog,
        "Per merged trace, how many times it repeats",
        "2:1",
        |s, v| {
            s.logs.merge_blktrace_iters = whole_list(v)?;
            Ok(())
        }
    ),
    opt!(
        "replay_no_stall",
        K::Bool,
        "0",
        Iolog,
        "Replay as fast as possible, ignoring the log's timing",
        "1",
        |s, v| {
            s.logs.replay_no_stall = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "replay_time_scale",
        K::Int,
        "100",
        Iolog,
        "Replay at this percentage of the log's I/O rate",
        "200",
        |s, v| {
            s.logs.replay_time_scale = uint(s, v, 1, u32::MAX as u64)?;
            Ok(())
        }
    ),
    opt!(
        "replay_redirect",
        K::Str,
        "",
        Iolog,
        "Replay every I/O onto this file or device",
        "/dev/sdc",
        |s, v| {
            nonempty(v)?;
            s.logs.replay_redirect = Some(v.trim().to_string());
            Ok(())
        }
    ),
    opt!(
        "replay_align",
        K::Int,
        "0",
        Iolog,
        "Align replayed offsets down to this power of two",
        "4096",
        |s, v| {
            let a = uint(s, v, 0, u64::MAX)?;
            if a > 1 && !a.is_power_of_two() {
                return Err(format!("{a} is not a power of two"));
            }
            s.logs.replay_align = a;
            Ok(())
        }
    ),
    opt!(
        "replay_scale",
        K::Int,
        "1",
        Iolog,
        "Divide replayed offsets by this factor",
        "2",
        |s, v| {
            s.logs.replay_scale = uint(s, v, 1, u64::MAX)?;
            Ok(())
        }
    ),
    opt!(
        "replay_skip",
        K::Str,
        "",
        Iolog,
        "Directions not replayed: a comma list of read, write, trim, sync",
        "write,trim",
        |s, v| {
            let mut skip = [false; 3];
            for w in v.split(',').map(str::trim).filter(|w| !w.is_empty()) {
                match w {
                    "read" => skip[0] = true,
                    "write" => skip[1] = true,
                    "trim" => skip[2] = true,
                    // Syncs are never replayed.
                    "sync" => {}
                    _ => {
                        return Err(format!(
                            "bad value '{w}': allowed values are read, write, trim, sync"
                        ))
                    }
                }
            }
            s.logs.replay_skip = skip;
            Ok(())
        }
    ),
    // ---------------------------------------------------------------- process
    opt!(
        "thread",
        K::Flag,
        "0",
        Process,
        "Use threads (iolens always does; affects wording only)",
        "1",
        |s, v| {
            s.thread = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "wait_for",
        K::Str,
        "",
        Process,
        "Start after the named job finished",
        "other",
        |s, v| {
            s.wait_for = Some(v.trim().to_string());
            Ok(())
        }
    ),
    OptDef {
        since: "3.42",
        ..opt!(
            "comm",
            K::Str,
            "",
            Process,
            "Name of the job's thread, as ps and top show it (15 bytes kept; default iolens-JOBNAME)",
            "worker",
            |s, v| {
                let v = v.trim();
                if v.is_empty() || v.contains('\0') {
                    return Err("give a non-empty name without NUL bytes".into());
                }
                s.comm = Some(v.to_string());
                Ok(())
            }
        )
    },
    opt!(
        "nice",
        K::Int,
        "0",
        Process,
        "Add this to the job's nice value (0 leaves it as it is)",
        "5",
        |s, v| {
            let n = value::parse_int(v, s.kb_base).map_err(e)?;
            if !(-20..=19).contains(&n) {
                return Err("nice must be in -20..19".into());
            }
            s.nice = n as i32;
            Ok(())
        }
    ),
    opt!(
        "prio",
        K::Int,
        "",
        Process,
        "I/O priority level (0-7)",
        "4",
        |s, v| {
            s.prio = Some(uint(s, v, 0, 7)? as u32);
            Ok(())
        }
    ),
    opt!(
        "prioclass",
        K::Int,
        "",
        Process,
        "I/O priority class (1 realtime, 2 best effort, 3 idle)",
        "2",
        |s, v| {
            s.prioclass = Some(uint(s, v, 0, 3)? as u32);
            Ok(())
        }
    ),
    OptDef {
        since: "3.36",
        ..ign!(
        "priohint",
        K::Int,
        Process,
        "I/O priority hints are not implemented"
    )
    },
    opt!(
        "cpus_allowed",
        K::Str,
        "",
        Process,
        "CPUs the job may run on (0,5,8-15)",
        "0",
        apply_cpus_allowed
    ),
    opt!(
        "cpus_allowed_policy",
        K::Enum(CPUS_POLICY_NAMES),
        "shared",
        Process,
        "Share the CPU set or give each job one CPU",
        "shared",
        |s, v| {
            s.cpus_allowed_policy = pick(v.trim(), CPUS_POLICY)?;
            Ok(())
        }
    ),
    opt!(
        "cpumask",
        K::Int,
        "",
        Process,
        "CPU affinity as a bit mask",
        "3",
        apply_cpumask
    ),
    ign!(
        "numa_cpu_nodes",
        K::Str,
        Process,
        "NUMA binding is not implemented"
    ),
    ign!(
        "numa_mem_policy",
        K::Str,
        Process,
        "NUMA binding is not implemented"
    ),
    ign!(
        "cgroup",
        K::Str,
        Process,
        "iolens does not create cgroups for jobs"
    ),
    ign!(
        "cgroup_weight",
        K::Int,
        Process,
        "iolens does not create cgroups for jobs"
    ),
    ign!(
        "cgroup_nodelete",
        K::Bool,
        Process,
        "iolens does not create cgroups for jobs"
    ),
    opt!(
        "flow_id",
        K::Int,
        "0",
        Process,
        "The flow this job's flow weight counts in (jobs with the same id share one)",
        "1",
        |s, v| {
            s.flow_id = uint(s, v, 0, u32::MAX as u64)? as u32;
            Ok(())
        }
    ),
    opt!(
        "flow",
        K::Int,
        "0",
        Process,
        "Weight in the flow: jobs of one flow_id issue I/O in proportion to their weights (0: off)",
        "2",
        |s, v| {
            s.flow = uint(s, v, 0, u32::MAX as u64)? as u32;
            Ok(())
        }
    ),
    opt!(
        "flow_sleep",
        K::Time,
        "0",
        Process,
        "How long (µs default) a job ahead of its flow share waits before it tries again",
        "100",
        |s, v| {
            s.flow_sleep = time(v, TimeUnit::Usec)?;
            Ok(())
        }
    ),
    opt!(
        "stonewall" | "wait_for_previous",
        K::Flag,
        "0",
        Process,
        "Wait for all earlier jobs to finish (starts a new group)",
        "1",
        |s, v| {
            s.stonewall = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "exitall",
        K::Flag,
        "0",
        Process,
        "When one job finishes, stop the others of its group (set on any job, it applies to all)",
        "1",
        |s, v| {
            s.exitall = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "exit_what",
        K::Enum(EXIT_WHAT_NAMES),
        "group",
        Process,
        "Which jobs exitall stops",
        "group",
        |s, v| {
            s.exit_what = pick(v.trim(), EXIT_WHAT)?;
            Ok(())
        }
    ),
    ign!(
        "exec_prerun",
        K::Str,
        Process,
        "iolens does not run commands from job files"
    ),
    ign!(
        "exec_postrun",
        K::Str,
        Process,
        "iolens does not run commands from job files"
    ),
    ign!("uid", K::Int, Process, "jobs run as the invoking user"),
    ign!("gid", K::Int, Process, "jobs run as the invoking user"),
    // ---------------------------------------------------------------- verify
    opt!(
        "verify_only",
        K::Flag,
        "0",
        Verify,
        "Only verify data written by an earlier run",
        "1",
        |s, v| {
            s.verify_only = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "do_verify",
        K::Bool,
        "1",
        Verify,
        "Run the verify phase after writing",
        "1",
        |s, v| {
            s.do_verify = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "verify",
        K::Enum(VERIFY_NAMES),
        "0",
        Verify,
        "Checksum written data and check it when read back",
        "crc32c",
        apply_verify
    ),
    opt!(
        "verify_offset",
        K::Size,
        "0",
        Verify,
        "Put the verify header at this offset in the block",
        "512",
        |s, v| {
            s.verify_offset = size(s, v)?;
            Ok(())
        }
    ),
    opt!(
        "verify_interval",
        K::Size,
        "bs",
        Verify,
        "Checksum every this many bytes",
        "512",
        |s, v| {
            s.verify_interval = size(s, v)?;
            Ok(())
        }
    ),
    opt!(
        "verify_pattern",
        K::Str,
        "",
        Verify,
        "Pattern written and checked (0x.., \"text\", numbers, %o: the I/O's offset)",
        "0xff",
        |s, v| {
            let (bytes, offsets) = parse_verify_pattern(v)?;
            s.verify_pattern = Some(bytes);
            s.verify_pattern_offsets = offsets;
            Ok(())
        }
    ),
    OptDef {
        since: "3.40",
        ..opt!(
            "verify_pattern_interval",
            K::Int,
            "0",
            Verify,
            "Start verify_pattern over every N bytes of each I/O, %o holding that offset",
            "4096",
            |s, v| {
                s.verify_pattern_interval = uint(s, v, 0, u32::MAX as u64)?;
                Ok(())
            }
        )
    },
    OptDef {
        since: "after 3.42",
        ..ign!(
        "verify_policy",
        K::Str,
        Verify,
        "all completed writes are verified"
    )
    },
    opt!(
        "verify_fatal",
        K::Bool,
        "0",
        Verify,
        "Stop at the first verify failure",
        "1",
        |s, v| {
            s.verify_fatal = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "verify_dump",
        K::Bool,
        "0",
        Verify,
        "Dump expected and found data of a bad block to files",
        "1",
        |s, v| {
            s.verify_dump = boolean(v)?;
            Ok(())
        }
    ),
    ign!(
        "verify_async",
        K::Int,
        Verify,
        "verification runs in the job's thread"
    ),
    ign!(
        "verify_async_cpus",
        K::Str,
        Verify,
        "verification runs in the job's thread"
    ),
    opt!(
        "verify_backlog",
        K::Int,
        "0",
        Verify,
        "Verify after every N writes instead of at the end",
        "64",
        |s, v| {
            s.verify_backlog = uint(s, v, 0, u64::MAX)?;
            Ok(())
        }
    ),
    opt!(
        "verify_backlog_batch",
        K::Int,
        "verify_backlog",
        Verify,
        "Blocks verified per backlog pass",
        "16",
        |s, v| {
            s.verify_backlog_batch = uint(s, v, 0, u64::MAX)?;
            Ok(())
        }
    ),
    opt!(
        "verify_state_save",
        K::Bool,
        "1",
        Verify,
        "Save how far a verifying writer got when it exits (local-<job>-<index>-verify.state, fio's format)",
        "1",
        |s, v| {
            s.verify_state_save = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "verify_state_load",
        K::Bool,
        "0",
        Verify,
        "Read back what a saved verify state says the writer completed (fio's or iolens' file)",
        "1",
        |s, v| {
            s.verify_state_load = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "experimental_verify",
        K::Bool,
        "0",
        Verify,
        "Read the written blocks back in the order they were written (fio replays the writes), not by offset",
        "1",
        |s, v| {
            s.experimental_verify = boolean(v)?;
            Ok(())
        }
    ),
    OptDef {
        since: "3.38",
        ..opt!(
        "verify_write_sequence",
        K::Bool,
        "",
        Verify,
        "Check each block's write number (default on; off with verify_only, for several jobs writing one range, and with norandommap at a queue depth above 1)",
        "0",
        |s, v| {
            s.verify_write_sequence = Some(boolean(v)?);
            Ok(())
        }
    )
    },
    OptDef {
        since: "3.40",
        ..opt!(
            "verify_header_seed",
            K::Bool,
            "",
            Verify,
            "Check the data seed in each verify header (default on; off where it cannot be known: verify_only, verify_backlog, norandommap, an offset modifier)",
            "0",
            |s, v| {
                s.verify_header_seed = Some(boolean(v)?);
                Ok(())
            }
        )
    },
    uns!(
        "trim_percentage",
        K::Int,
        Verify,
        "trim verification is not implemented"
    ),
    ign!(
        "trim_verify_zero",
        K::Bool,
        Verify,
        "trim verification is not implemented"
    ),
    ign!(
        "trim_backlog",
        K::Int,
        Verify,
        "trim verification is not implemented"
    ),
    ign!(
        "trim_backlog_batch",
        K::Int,
        Verify,
        "trim verification is not implemented"
    ),
    // ---------------------------------------------------------------- steady state
    opt!(
        "steadystate" | "ss",
        K::Str,
        "",
        SteadyState,
        "Stop when a metric is steady (iops, bw, iops_slope, bw_slope : limit[%])",
        "iops_slope:0.3%",
        |s, v| {
            s.steadystate = Some(SteadyCriterion::parse(v)?);
            Ok(())
        }
    ),
    opt!(
        "steadystate_duration" | "ss_dur",
        K::Time,
        "0",
        SteadyState,
        "Window of the steady-state check",
        "30",
        |s, v| {
            s.steadystate_duration = time(v, TimeUnit::Sec)?;
            Ok(())
        }
    ),
    opt!(
        "steadystate_ramp_time" | "ss_ramp",
        K::Time,
        "0",
        SteadyState,
        "Delay before steady-state data is collected",
        "5",
        |s, v| {
            s.steadystate_ramp_time = time(v, TimeUnit::Sec)?;
            Ok(())
        }
    ),
    OptDef {
        since: "3.35",
        ..opt!(
            "steadystate_check_interval" | "ss_interval",
            K::Time,
            "",
            SteadyState,
            "Period of the steady-state data, default 1 s: ss_dur / ss_interval values per window",
            "10",
            |s, v| {
                s.steadystate_check_interval = Some(time(v, TimeUnit::Sec)?);
                Ok(())
            }
        )
    },
    // ---------------------------------------------------------------- reporting
    opt!(
        "per_job_logs",
        K::Bool,
        "1",
        Reporting,
        "One log file per job (name_bw.N.log); 0 shares one file (name_bw.log)",
        "0",
        |s, v| {
            s.logs.per_job = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "group_reporting",
        K::Flag,
        "0",
        Reporting,
        "Report each group as one job",
        "1",
        |s, v| {
            s.group_reporting = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "new_group",
        K::Flag,
        "0",
        Reporting,
        "Start a new reporting group",
        "1",
        |s, v| {
            s.new_group = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "stats",
        K::Bool,
        "1",
        Reporting,
        "Collect statistics for this job",
        "1",
        |s, v| {
            s.stats = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "write_bw_log",
        K::Flag,
        "",
        Reporting,
        "Write fio's bandwidth log (PREFIX_type.N.log; bare: the job name)",
        "mylog",
        |s, v| {
            s.logs.bw = Some(log_prefix(v)?);
            Ok(())
        }
    ),
    opt!(
        "write_lat_log",
        K::Flag,
        "",
        Reporting,
        "Write fio's slat, clat and lat log (PREFIX_type.N.log; bare: the job name)",
        "mylog",
        |s, v| {
            s.logs.lat = Some(log_prefix(v)?);
            Ok(())
        }
    ),
    opt!(
        "write_hist_log",
        K::Flag,
        "",
        Reporting,
        "Write fio's clat histogram log (PREFIX_type.N.log; bare: the job name)",
        "mylog",
        |s, v| {
            s.logs.hist = Some(log_prefix(v)?);
            Ok(())
        }
    ),
    opt!(
        "write_iops_log",
        K::Flag,
        "",
        Reporting,
        "Write fio's IOPS log (PREFIX_type.N.log; bare: the job name)",
        "mylog",
        |s, v| {
            s.logs.iops = Some(log_prefix(v)?);
            Ok(())
        }
    ),
    ign!(
        "log_entries",
        K::Int,
        Reporting,
        "log lines go to the file through 256 KiB buffers; the in-memory entry count has no equivalent"
    ),
    opt!(
        "log_avg_msec",
        K::Int,
        "0",
        Reporting,
        "Average log entries over this many ms (0: one entry per I/O)",
        "100",
        |s, v| {
            s.logs.avg_msec = uint(s, v, 0, u32::MAX as u64)?;
            Ok(())
        }
    ),
    opt!(
        "log_hist_msec",
        K::Int,
        "0",
        Reporting,
        "Histogram log interval in ms",
        "100",
        |s, v| {
            s.logs.hist_msec = uint(s, v, 0, u32::MAX as u64)?;
            Ok(())
        }
    ),
    opt!(
        "log_hist_coarseness",
        K::Int,
        "0",
        Reporting,
        "Merge 2^N histogram bins per logged column (0-6)",
        "2",
        |s, v| {
            s.logs.hist_coarseness = uint(s, v, 0, 6)? as u32;
            Ok(())
        }
    ),
    opt!(
        "log_max_value" | "log_window_value",
        K::Str,
        "0",
        Reporting,
        "Windowed log entries hold the mean (0, avg), the maximum (1, max) or both (mean, then maximum)",
        "1",
        |s, v| {
            (s.logs.max_value, s.logs.both_values) = pick(
                v.trim(),
                &[
                    ("0", (false, false)),
                    ("avg", (false, false)),
                    ("mean", (false, false)),
                    ("1", (true, false)),
                    ("max", (true, false)),
                    ("both", (false, true)),
                ],
            )?;
            Ok(())
        }
    ),
    opt!(
        "log_offset",
        K::Bool,
        "0",
        Reporting,
        "Add the I/O offset column to per-I/O logs",
        "1",
        |s, v| {
            s.logs.offset = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "log_prio",
        K::Bool,
        "0",
        Reporting,
        "Log the I/O priority (hex) in the last column",
        "1",
        |s, v| {
            s.logs.prio = boolean(v)?;
            Ok(())
        }
    ),
    OptDef {
        since: "3.38",
        ..opt!(
            "log_issue_time",
            K::Bool,
            "0",
            Reporting,
            "A last log column with each I/O's issue time in ns (clat and slat logs; needs write_lat_log and log_offset)",
            "1",
            |s, v| {
                s.logs.issue_time = boolean(v)?;
                Ok(())
            }
        )
    },
    opt!(
        "log_compression",
        K::Size,
        "0",
        Reporting,
        "Compress logs in chunks of this size (stored compressed with log_store_compressed)",
        "64k",
        |s, v| {
            s.logs.compression = size(s, v)?;
            Ok(())
        }
    ),
    ign!(
        "log_compression_cpus",
        K::Str,
        Reporting,
        "iolens compresses logs on each job's log writer thread, which runs where the OS puts it"
    ),
    opt!(
        "log_store_compressed",
        K::Bool,
        "0",
        Reporting,
        "Store bw/iops/lat logs zlib-compressed as NAME.log.fz (read with --inflate-log)",
        "1",
        |s, v| {
            s.logs.store_compressed = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "log_unix_epoch",
        K::Bool,
        "0",
        Reporting,
        "Log times as Unix epoch milliseconds",
        "1",
        |s, v| {
            s.logs.unix_epoch = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "log_alternate_epoch",
        K::Bool,
        "0",
        Reporting,
        "Log times from the epoch of log_alternate_epoch_clock_id's clock",
        "1",
        |s, v| {
            s.logs.alternate_epoch = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "log_alternate_epoch_clock_id",
        K::Int,
        "0",
        Reporting,
        "clock_gettime clock of log_alternate_epoch (0 realtime, 1 monotonic, ...)",
        "1",
        |s, v| {
            let id = v
                .trim()
                .parse::<i32>()
                .ok()
                .filter(|id| crate::spec::LOG_CLOCK_IDS.contains(id))
                .ok_or_else(|| {
                    format!(
                        "'{}' is not a clock id; allowed: {}",
                        v.trim(),
                        crate::spec::LOG_CLOCK_IDS.map(|i| i.to_string()).join(", ")
                    )
                })?;
            s.logs.alternate_clock = id;
            Ok(())
        }
    ),
    ign!(
        "block_error_percentiles",
        K::Bool,
        Reporting,
        "trim block error histograms are not implemented"
    ),
    opt!(
        "bwavgtime",
        K::Int,
        "500",
        Reporting,
        "Bandwidth sample interval in ms",
        "1000",
        |s, v| {
            s.bwavgtime = Duration::from_millis(uint(s, v, 1, u32::MAX as u64)?);
            Ok(())
        }
    ),
    opt!(
        "iopsavgtime",
        K::Int,
        "500",
        Reporting,
        "IOPS sample interval in ms",
        "1000",
        |s, v| {
            s.iopsavgtime = Duration::from_millis(uint(s, v, 1, u32::MAX as u64)?);
            Ok(())
        }
    ),
    opt!(
        "disk_util",
        K::Bool,
        "1",
        Reporting,
        "Report utilization of the devices under the files",
        "1",
        |s, v| {
            s.disk_util = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "disable_lat",
        K::Bool,
        "0",
        Reporting,
        "Do not measure total latency",
        "1",
        |s, v| {
            s.disable_lat = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "disable_clat",
        K::Bool,
        "0",
        Reporting,
        "Do not measure completion latency",
        "1",
        |s, v| {
            s.disable_clat = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "disable_slat",
        K::Bool,
        "0",
        Reporting,
        "Do not measure submission latency",
        "1",
        |s, v| {
            s.disable_slat = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "disable_bw_measurement" | "disable_bw",
        K::Bool,
        "0",
        Reporting,
        "Do not sample bandwidth and IOPS",
        "1",
        |s, v| {
            s.disable_bw = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "slat_percentiles",
        K::Bool,
        "0",
        Reporting,
        "Report submission latency percentiles",
        "1",
        |s, v| {
            s.slat_percentiles = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "clat_percentiles",
        K::Bool,
        "1",
        Reporting,
        "Report completion latency percentiles",
        "1",
        |s, v| {
            s.clat_percentiles = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "lat_percentiles",
        K::Bool,
        "0",
        Reporting,
        "Report total latency percentiles",
        "1",
        |s, v| {
            s.lat_percentiles = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "percentile_list",
        K::FloatList,
        "1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.95:99.99",
        Reporting,
        "Percentiles to report",
        "50:99:99.9",
        |s, v| {
            let l = value::parse_float_list(v).map_err(e)?;
            if l.len() > 20 {
                return Err("percentile_list allows at most 20 entries".into());
            }
            if let Some(bad) = l.iter().find(|p| !(0.0..=100.0).contains(*p)) {
                return Err(format!("percentile {bad} is outside 0..100"));
            }
            // fio reports them in ascending order whatever the order given.
            let mut l = l;
            l.sort_by(f64::total_cmp);
            s.percentile_list = l;
            Ok(())
        }
    ),
    opt!(
        "significant_figures",
        K::Int,
        "4",
        Reporting,
        "Significant figures in normal output",
        "4",
        |s, v| {
            s.significant_figures = uint(s, v, 1, 10)? as u32;
            Ok(())
        }
    ),
    // ---------------------------------------------------------------- errors
    ign!(
        "exitall_on_error",
        K::Flag,
        Errors,
        "a failing job does not stop the others"
    ),
    opt!(
        "continue_on_error",
        K::Enum(CONTINUE_ON_ERROR_NAMES),
        "none",
        Errors,
        "Keep going after I/O or verify errors",
        "io",
        |s, v| {
            s.continue_on_error = pick(v.trim(), CONTINUE_ON_ERROR)?;
            Ok(())
        }
    ),
    opt!(
        "ignore_error",
        K::Str,
        "",
        Errors,
        "Errors to ignore per type: READ,WRITE,VERIFY lists of names or numbers",
        "EIO:ENOSPC",
        apply_ignore_error
    ),
    ign!(
        "error_dump",
        K::Bool,
        Errors,
        "errors are always reported once per job"
    ),
    // ---------------------------------------------------------------- profiles
    uns!(
        "profile",
        K::Str,
        Description,
        "fio's built-in profiles (act, tiobench) are not implemented"
    ),
    ign!(
        "device-names",
        K::Str,
        Description,
        "belongs to the act profile, which is not implemented"
    ),
    ign!(
        "load",
        K::Int,
        Description,
        "belongs to the act profile, which is not implemented"
    ),
    ign!(
        "test-duration",
        K::Time,
        Description,
        "belongs to the act profile, which is not implemented"
    ),
    ign!(
        "threads-per-queue",
        K::Int,
        Description,
        "belongs to the act profile, which is not implemented"
    ),
    ign!(
        "read-req-num-512-blocks",
        K::Int,
        Description,
        "belongs to the act profile, which is not implemented"
    ),
    ign!(
        "large-block-op-kbytes",
        K::Int,
        Description,
        "belongs to the act profile, which is not implemented"
    ),
    ign!(
        "prep",
        K::Flag,
        Description,
        "belongs to the act profile, which is not implemented"
    ),
    ign!(
        "block",
        K::Int,
        Description,
        "belongs to the tiobench profile, which is not implemented"
    ),
    ign!(
        "numruns",
        K::Int,
        Description,
        "belongs to the tiobench profile, which is not implemented"
    ),
    ign!(
        "dir",
        K::Str,
        Description,
        "belongs to the tiobench profile, which is not implemented"
    ),
    ign!(
        "threads",
        K::Int,
        Description,
        "belongs to the tiobench profile, which is not implemented"
    ),
    // ---------------------------------------------------------------- iolens
    opt!(
        "allow_destructive_write",
        K::Bool,
        "0",
        Iolens,
        "Allow writes to block devices that hold a filesystem or partition table",
        "1",
        |s, v| {
            s.allow_destructive_write = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "allow_fill",
        K::Bool,
        "0",
        Iolens,
        "Allow laying out or extending files that would leave their filesystem with less than 5 % (at most 1 GiB) free",
        "1",
        |s, v| {
            s.allow_fill = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "open_loop",
        K::Bool,
        "0",
        Iolens,
        "Rate-limited I/Os arrive on schedule even while earlier ones are in flight; latency counts from each I/O's scheduled arrival",
        "1",
        |s, v| {
            s.open_loop = boolean(v)?;
            Ok(())
        }
    ),
    opt!(
        "sim_volume",
        K::Str,
        "",
        Iolens,
        "Serve I/O from a simulated volume model, e.g. io1:iops=48000 (see `iolens models`)",
        "io1:iops=48000",
        |s, v| {
            if v.trim().is_empty() {
                return Err("sim_volume needs a model, e.g. io1:iops=48000".into());
            }
            s.sim.volume = Some(v.trim().to_string());
            Ok(())
        }
    ),
    opt!(
        "sim_iops",
        K::Int,
        "",
        Iolens,
        "IOPS limit of the simulated volume",
        "3000",
        |s, v| {
            s.sim.iops = Some(uint(s, v, 1, u64::MAX)? as f64);
            Ok(())
        }
    ),
    opt!(
        "sim_bw",
        K::Size,
        "",
        Iolens,
        "Bandwidth limit of the simulated volume in bytes/s",
        "125m",
        |s, v| {
            s.sim.bw = Some(uint(s, v, 1, u64::MAX)? as f64);
            Ok(())
        }
    ),
    opt!(
        "sim_latency",
        K::Str,
        "",
        Iolens,
        "Base latency of the simulated volume: 463us, normal:463us:50us, lognormal:463us:50us",
        "500us",
        |s, v| {
            s.sim.latency = Some(LatencyDist::parse(v)?);
            Ok(())
        }
    ),
    opt!(
        "verify_header_format",
        K::Enum(VERIFY_HEADER_FORMAT_NAMES),
        "3.33",
        Iolens,
        "Verify header to write: fio 3.33's (3.33 reads it) or fio 3.41's versioned one (fio 3.41 and later read only that); both are read",
        "3.41",
        |s, v| {
            s.verify_header_format = pick(v.trim(), VERIFY_HEADER_FORMAT)?;
            Ok(())
        }
    ),
];
