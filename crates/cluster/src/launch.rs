//! Rank and size from the launcher that started this process, the coordinator's address, the
//! shared token, and per-rank substitution in job options.

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};

/// Where this process sits in a cluster run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// This rank (0 coordinates).
    pub rank: u32,
    /// Number of ranks.
    pub size: u32,
    /// Which launcher said so (`Open MPI`, `MPICH/Hydra`, `Slurm`, `Kubernetes`, `IOLENS_RANK`).
    pub source: &'static str,
    /// The launcher's job id, when it gives one (for deriving the token).
    pub job_id: Option<String>,
}

fn num(get: &dyn Fn(&str) -> Option<String>, name: &str) -> Result<Option<u32>> {
    match get(name) {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse::<u32>()
            .map(Some)
            .with_context(|| format!("{name}='{v}' is not a rank/size number")),
    }
}

/// Detects the launcher from the environment (`get` reads a variable). `world_size` is
/// `--world-size`, needed with a Kubernetes Indexed Job. None: no launcher, run alone.
pub fn detect(
    get: &dyn Fn(&str) -> Option<String>,
    world_size: Option<u32>,
) -> Result<Option<Launch>> {
    let first = |names: &[&str]| names.iter().find_map(|n| get(n));
    let pairs: [(&str, &str, &'static str, &[&str]); 4] = [
        (
            "IOLENS_RANK",
            "IOLENS_SIZE",
            "IOLENS_RANK",
            &["IOLENS_JOB_ID"],
        ),
        (
            "OMPI_COMM_WORLD_RANK",
            "OMPI_COMM_WORLD_SIZE",
            "Open MPI",
            &[
                "OMPI_MCA_ess_base_jobid",
                "OMPI_MCA_orte_ess_jobid",
                "PMIX_NAMESPACE",
            ],
        ),
        (
            "PMI_RANK",
            "PMI_SIZE",
            "MPICH/Hydra",
            &["PMI_JOBID", "PMIX_NAMESPACE"],
        ),
        ("SLURM_PROCID", "SLURM_NTASKS", "Slurm", &["SLURM_JOB_ID"]),
    ];
    for (r, s, source, ids) in pairs {
        let Some(rank) = num(get, r)? else { continue };
        let size = match (num(get, s)?, world_size) {
            (Some(n), _) => n,
            (None, Some(n)) => n,
            (None, None) => bail!("{r} is set but {s} is not (or give --world-size)"),
        };
        let mut job_id = first(ids);
        if source == "Slurm" {
            if let (Some(j), Some(step)) = (job_id.as_mut(), get("SLURM_STEP_ID")) {
                j.push('.');
                j.push_str(&step);
            }
        }
        return Launch::checked(rank, size, source, job_id).map(Some);
    }
    if let Some(rank) = num(get, "JOB_COMPLETION_INDEX")? {
        let Some(size) = world_size.or(num(get, "IOLENS_SIZE")?) else {
            bail!("JOB_COMPLETION_INDEX is set (Kubernetes Indexed Job) but the number of ranks is not: give --world-size=N (the Job's completions)");
        };
        return Launch::checked(rank, size, "Kubernetes", first(&["IOLENS_JOB_ID"])).map(Some);
    }
    Ok(None)
}

impl Launch {
    fn checked(
        rank: u32,
        size: u32,
        source: &'static str,
        job_id: Option<String>,
    ) -> Result<Launch> {
        if size == 0 || rank >= size {
            bail!("{source}: rank {rank} is outside 0..{size}");
        }
        Ok(Launch {
            rank,
            size,
            source,
            job_id,
        })
    }
}

/// The shared token: `IOLENS_TOKEN`, or one derived from the launcher's job id (which every
/// rank of the job sees, and which is not secret from other users of the cluster).
pub fn token(get: &dyn Fn(&str) -> Option<String>, l: &Launch) -> Result<String> {
    if let Some(t) = get("IOLENS_TOKEN").filter(|t| !t.is_empty()) {
        return Ok(t);
    }
    let Some(id) = &l.job_id else {
        bail!(
            "no token for the cluster run: set IOLENS_TOKEN to the same secret on every rank \
             ({} gives no job id to derive one from)",
            l.source
        );
    };
    let mut h = Sha256::new();
    h.update(b"iolens-cluster-token\0");
    h.update(l.source.as_bytes());
    h.update(b"\0");
    h.update(id.as_bytes());
    Ok(h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Compares tokens without an early exit.
pub fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// This machine's host name.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "localhost".into();
    }
    let n = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// Replaces `$rank`, `$size` and `$hostname` (not followed by a letter, digit or `_`).
pub fn substitute(s: &str, rank: u32, size: u32, host: &str) -> String {
    let keys = [
        ("$rank", rank.to_string()),
        ("$size", size.to_string()),
        ("$hostname", host.to_string()),
    ];
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    'outer: while i < s.len() {
        let rest = &s[i..];
        for (k, v) in &keys {
            if let Some(after) = rest.strip_prefix(*k) {
                let next = after.chars().next();
                if !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.push_str(v);
                    i += k.len();
                    continue 'outer;
                }
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |n: &str| {
            vars.iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| v.to_string())
        }
    }

    /// Variables, --world-size, expected (rank, size, launcher).
    type Case<'a> = (
        &'a [(&'a str, &'a str)],
        Option<u32>,
        Option<(u32, u32, &'a str)>,
    );

    #[test]
    fn launchers_are_detected() {
        let cases: &[Case] = &[
            (&[], None, None),
            (
                &[("OMPI_COMM_WORLD_RANK", "2"), ("OMPI_COMM_WORLD_SIZE", "4")],
                None,
                Some((2, 4, "Open MPI")),
            ),
            (
                &[("PMI_RANK", "1"), ("PMI_SIZE", "3")],
                None,
                Some((1, 3, "MPICH/Hydra")),
            ),
            (
                &[
                    ("SLURM_PROCID", "0"),
                    ("SLURM_NTASKS", "8"),
                    ("SLURM_JOB_ID", "77"),
                ],
                None,
                Some((0, 8, "Slurm")),
            ),
            (
                &[("JOB_COMPLETION_INDEX", "3")],
                Some(5),
                Some((3, 5, "Kubernetes")),
            ),
            // IOLENS_RANK wins over a launcher's variables.
            (
                &[
                    ("IOLENS_RANK", "1"),
                    ("IOLENS_SIZE", "2"),
                    ("OMPI_COMM_WORLD_RANK", "0"),
                    ("OMPI_COMM_WORLD_SIZE", "4"),
                ],
                None,
                Some((1, 2, "IOLENS_RANK")),
            ),
        ];
        for (vars, ws, want) in cases {
            let got = detect(&env(vars), *ws)
                .unwrap()
                .map(|l| (l.rank, l.size, l.source));
            assert_eq!(
                got, *want,
                "launcher from {vars:?} with --world-size {ws:?}"
            );
        }
    }

    #[test]
    fn bad_launch_environments_are_errors() {
        let bad: &[&[(&str, &str)]] = &[
            &[("IOLENS_RANK", "3"), ("IOLENS_SIZE", "3")],
            &[("IOLENS_RANK", "x"), ("IOLENS_SIZE", "3")],
            &[("JOB_COMPLETION_INDEX", "0")],
            &[("PMI_RANK", "0")],
        ];
        for vars in bad {
            assert!(
                detect(&env(vars), None).is_err(),
                "expected an error from {vars:?}"
            );
        }
    }

    #[test]
    fn token_from_env_or_job_id() {
        let l = detect(
            &env(&[
                ("SLURM_PROCID", "0"),
                ("SLURM_NTASKS", "2"),
                ("SLURM_JOB_ID", "9"),
            ]),
            None,
        )
        .unwrap()
        .unwrap();
        let a = token(&env(&[]), &l).unwrap();
        assert_eq!(a.len(), 32);
        let mut other = l.clone();
        other.job_id = Some("10".into());
        assert_ne!(
            a,
            token(&env(&[]), &other).unwrap(),
            "another job, another token"
        );
        assert_eq!(
            token(&env(&[("IOLENS_TOKEN", "s3cret")]), &l).unwrap(),
            "s3cret"
        );
        other.job_id = None;
        assert!(token(&env(&[]), &other).is_err());
        assert!(same_token("abc", "abc") && !same_token("abc", "abd") && !same_token("abc", "ab"));
    }

    #[test]
    fn substitution() {
        assert_eq!(
            substitute(
                "filename=/mnt/x.$rank.of.$size,$hostname,$ranks,$sizeX,$$rank",
                2,
                4,
                "h1"
            ),
            "filename=/mnt/x.2.of.4,h1,$ranks,$sizeX,$2"
        );
    }
}
