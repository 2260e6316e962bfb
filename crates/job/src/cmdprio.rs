//! Per-command I/O priorities (`cmdprio_percentage`, `cmdprio_class`, `cmdprio`,
//! `cmdprio_bssplit`): the options as typed, and the plan they come to once the job's own
//! priority is known.
//!
//! A priority is the kernel's `ioprio` value, `class << 13 | level`, as fio carries it (the
//! SQE's `ioprio` for io_uring, `aio_reqprio` with `IOCB_FLAG_IOPRIO` for libaio). As in
//! fio, only reads and writes take a command priority; class 0 means best effort (2);
//! `cmdprio_class` defaults to real time (1) and `cmdprio` to level 0.
//!
//! fio draws a random number per I/O and gives it the priority when the draw falls below the
//! percentage, so the share of prioritized I/Os only tends to the percentage. iolens keeps
//! the share exact: of every 100 I/Os of a direction (and, with `cmdprio_bssplit`, of a block
//! size), exactly the percentage given carries the priority, at positions drawn from the job's
//! seed (100 draws without replacement where fio draws with replacement).

use crate::value::{self, KbBase, ValueError};

/// fio's `IOPRIO_CLASS_SHIFT`.
pub const CLASS_SHIFT: u16 = 13;

/// The `ioprio` value of a class and level; class 0 means best effort, as fio's
/// `ioprio_value`.
pub fn ioprio_value(class: u16, level: u16) -> u16 {
    let class = if class == 0 { 2 } else { class };
    (class << CLASS_SHIFT) | level
}

/// The class of an `ioprio` value (fio prints `ioprio >> 13`).
pub fn ioprio_class(ioprio: u16) -> u16 {
    ioprio >> CLASS_SHIFT
}

/// The level of an `ioprio` value (fio prints `ioprio & 7`).
pub fn ioprio_level(ioprio: u16) -> u16 {
    ioprio & 7
}

/// One `cmdprio_bssplit` entry: I/Os of `bs` bytes, `pct` % of which carry a priority, given
/// in the entry (`bs/pct/class/level`) or by `cmdprio_class` and `cmdprio` (`bs/pct`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrioSplit {
    /// Block size in bytes.
    pub bs: u64,
    /// Share of the I/Os of that size, percent.
    pub pct: u8,
    /// The entry's own priority (`ioprio` value), if it names one.
    pub ioprio: Option<u16>,
}

/// The per-command priority options of a job, as typed. Index 0 is reads, 1 writes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CmdPrio {
    /// `cmdprio_percentage`.
    pub percentage: [u8; 2],
    /// `cmdprio_class` (1..=3), when set.
    pub class: [Option<u16>; 2],
    /// `cmdprio` (0..=7).
    pub level: [u16; 2],
    /// `cmdprio_bssplit`, entries with a zero share left out, sorted by block size.
    pub bssplit: Option<[Vec<PrioSplit>; 2]>,
}

/// How the I/Os of one block size (or of any size) share priorities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrioRule {
    /// The block size the rule is for; `None`: every size.
    pub bs: Option<u64>,
    /// (share in percent, index into [`PrioPlan::prios`]) for each prioritized share; the
    /// shares add up to at most 100, the rest keep the job's own priority (index 0).
    pub shares: Vec<(u8, u8)>,
}

/// The priorities of one job's I/O, worked out once from its options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrioPlan {
    /// Per direction (read, write, trim): the distinct priorities its I/O carries, the job's
    /// own first; empty for a direction whose I/O all keeps the job's own priority.
    pub prios: [Vec<u16>; 3],
    /// Per direction: the rules, in order of block size.
    pub rules: [Vec<PrioRule>; 3],
}

impl CmdPrio {
    /// True when some I/O is to carry a command priority.
    pub fn enabled(&self) -> bool {
        self.bssplit.is_some() || self.percentage.iter().any(|p| *p > 0)
    }

    /// The options' cross checks (fio's words where fio has them).
    pub fn validate(&self) -> Result<(), String> {
        if self.bssplit.is_some() && self.percentage.iter().any(|p| *p > 0) {
            return Err(
                "cmdprio_percentage and cmdprio_bssplit options are mutually exclusive".into(),
            );
        }
        Ok(())
    }

    /// The plan for a job whose own priority is `own` (0 when it sets none) and that reads
    /// and/or writes; None when no I/O carries a command priority.
    pub fn plan(&self, own: u16, reads: bool, writes: bool) -> Option<PrioPlan> {
        if !self.enabled() {
            return None;
        }
        let mut plan = PrioPlan {
            prios: Default::default(),
            rules: Default::default(),
        };
        for (d, active) in [reads, writes].into_iter().enumerate() {
            if !active {
                continue;
            }
            // cmdprio_class defaults to the highest class, real time.
            let implicit = ioprio_value(self.class[d].unwrap_or(1), self.level[d]);
            let mut prios = vec![own];
            let mut index_of = |p: u16| -> u8 {
                match prios.iter().position(|x| *x == p) {
                    Some(i) => i as u8,
                    None => {
                        prios.push(p);
                        (prios.len() - 1) as u8
                    }
                }
            };
            let mut rules: Vec<PrioRule> = Vec::new();
            match &self.bssplit {
                None => {
                    if self.percentage[d] > 0 {
                        let idx = index_of(implicit);
                        rules.push(PrioRule {
                            bs: None,
                            shares: vec![(self.percentage[d], idx)],
                        });
                    }
                }
                Some(split) => {
                    for e in &split[d] {
                        let idx = index_of(e.ioprio.unwrap_or(implicit));
                        match rules.last_mut() {
                            Some(r) if r.bs == Some(e.bs) => r.shares.push((e.pct, idx)),
                            _ => rules.push(PrioRule {
                                bs: Some(e.bs),
                                shares: vec![(e.pct, idx)],
                            }),
                        }
                    }
                }
            }
            if !rules.is_empty() {
                plan.prios[d] = prios;
                plan.rules[d] = rules;
            }
        }
        plan.prios.iter().any(|p| !p.is_empty()).then_some(plan)
    }
}

/// Parses `cmdprio_bssplit=bs/pct[/class/level[/hint]]:...[,writes]` (a third, trim list
/// is accepted and ignored, as fio). Without a comma the list applies to reads and writes.
/// Also says whether an entry gave a priority hint (fio 3.36's fifth field), which iolens
/// does not send.
pub fn parse_bssplit(s: &str, kb: KbBase) -> Result<([Vec<PrioSplit>; 2], bool), ValueError> {
    let lists: Vec<&str> = s.trim().split(',').collect();
    if lists.len() > 3 {
        return Err(ValueError(format!(
            "'{s}' has {} comma-separated lists: give at most read,write,trim",
            lists.len()
        )));
    }
    let mut out: [Vec<PrioSplit>; 2] = Default::default();
    let mut hinted = false;
    for (d, slot) in out.iter_mut().enumerate() {
        let l = lists[d.min(lists.len() - 1)].trim();
        let mut total = 0u32;
        let mut entries = Vec::new();
        for item in l.split(':').map(str::trim).filter(|i| !i.is_empty()) {
            let (e, hint) = parse_entry(item, kb)?;
            hinted |= hint != 0;
            if e.pct == 0 {
                // fio skips them: they say nothing.
                continue;
            }
            entries.push(e);
        }
        if entries.len() > 64 {
            return Err(ValueError(
                "cmdprio_bssplit allows at most 64 entries per direction".into(),
            ));
        }
        // Stable: entries of one size keep their order, as their shares are drawn in it.
        entries.sort_by_key(|e| e.bs);
        for (i, e) in entries.iter().enumerate() {
            total = if i > 0 && entries[i - 1].bs == e.bs {
                total + e.pct as u32
            } else {
                e.pct as u32
            };
            if total > 100 {
                return Err(ValueError(format!(
                    "cmdprio_bssplit shares of block size {} add up to {total}%, more than 100",
                    e.bs
                )));
            }
        }
        *slot = entries;
    }
    Ok((out, hinted))
}

fn parse_entry(item: &str, kb: KbBase) -> Result<(PrioSplit, u32), ValueError> {
    let bad = |why: &str| {
        ValueError(format!(
            "bad cmdprio_bssplit entry '{item}': {why} (allowed: blocksize/percentage, \
             blocksize/percentage/class/level or blocksize/percentage/class/level/hint)"
        ))
    };
    let fields: Vec<&str> = item.split('/').map(str::trim).collect();
    let bs = value::parse_size(fields[0], kb).map_err(|e| bad(&e.0))?;
    if bs == 0 {
        return Err(bad("the block size must be greater than 0"));
    }
    let num = |s: &str, what: &str, max: u32| -> Result<u32, ValueError> {
        let v: u32 = s
            .parse()
            .map_err(|_| bad(&format!("{what} '{s}' is not a whole number")))?;
        if v > max {
            return Err(bad(&format!("{what} {v} is out of range 0..={max}")));
        }
        Ok(v)
    };
    let pct = match fields.get(1) {
        None | Some(&"") => 0,
        Some(p) => num(p, "percentage", 100)?,
    };
    let ioprio = match fields.len() {
        1 | 2 => None,
        4 | 5 => Some(ioprio_value(
            num(fields[2], "class", 3)? as u16,
            num(fields[3], "level", 7)? as u16,
        )),
        _ => return Err(bad("expected 2, 4 or 5 fields")),
    };
    // fio's IOPRIO_MAX_PRIO_HINT.
    let hint = match fields.get(4) {
        Some(h) => num(h, "hint", 1023)?,
        None => 0,
    };
    Ok((
        PrioSplit {
            bs,
            pct: pct as u8,
            ioprio,
        },
        hint,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: KbBase = KbBase::Binary;

    fn split(bs: u64, pct: u8, ioprio: Option<u16>) -> PrioSplit {
        PrioSplit { bs, pct, ioprio }
    }

    #[test]
    fn bssplit_forms_and_directions() {
        let (s, hinted) = parse_bssplit("64k/20:4k/50/3/7:4k/10", B).unwrap();
        assert!(!hinted, "no entry gives a hint");
        let want = vec![
            split(4096, 50, Some(3 << 13 | 7)),
            split(4096, 10, None),
            split(65536, 20, None),
        ];
        assert_eq!(
            s[0], want,
            "'64k/20:4k/50/3/7:4k/10': sorted by size, same size in order"
        );
        assert_eq!(s[1], want, "one list applies to reads and writes");
        let (s, _) = parse_bssplit("4k/10,8k/0/1/1:16k/30/0/4,1k/50", B).unwrap();
        assert_eq!(s[0], vec![split(4096, 10, None)], "reads of '4k/10,...'");
        assert_eq!(
            s[1],
            vec![split(16384, 30, Some(2 << 13 | 4))],
            "writes of '...,8k/0/1/1:16k/30/0/4,...': zero share left out, class 0 is best effort"
        );
        let (s, hinted) = parse_bssplit("1M/10/2/0/1:1M/90/2/0/0", B).unwrap();
        assert!(hinted, "fio 3.36's hint field is read");
        assert_eq!(
            s[0],
            vec![
                split(1 << 20, 10, Some(2 << 13)),
                split(1 << 20, 90, Some(2 << 13))
            ],
            "'1M/10/2/0/1:1M/90/2/0/0': class and level as given, the hint not sent"
        );
    }

    #[test]
    fn bssplit_errors_say_what_is_allowed() {
        for (text, says) in [
            ("4k/101", "percentage 101 is out of range 0..=100"),
            ("4k/10/4/0", "class 4 is out of range 0..=3"),
            ("4k/10/1/8", "level 8 is out of range 0..=7"),
            ("4k/10/1", "expected 2, 4 or 5 fields"),
            ("4k/10/1/1/1/1", "expected 2, 4 or 5 fields"),
            ("4k/10/1/1/1024", "hint 1024 is out of range 0..=1023"),
            ("4k/x", "percentage 'x' is not a whole number"),
            ("0/10", "greater than 0"),
            ("4q/10", "bad cmdprio_bssplit entry '4q/10'"),
            ("4k/60:4k/50", "shares of block size 4096 add up to 110%"),
            ("4k/1,4k/1,4k/1,4k/1", "at most read,write,trim"),
        ] {
            match parse_bssplit(text, B) {
                Ok(v) => {
                    panic!("cmdprio_bssplit={text}: expected an error saying {says:?}, got {v:?}")
                }
                Err(e) => assert!(
                    e.0.contains(says),
                    "cmdprio_bssplit={text}: expected an error saying {says:?}, got {:?}",
                    e.0
                ),
            }
        }
    }

    #[test]
    fn plan_indexes_priorities_as_fio() {
        // fio's clat_prio index: the job's own priority first, then each new one in order.
        let c = CmdPrio {
            percentage: [25, 0],
            ..CmdPrio::default()
        };
        let p = c.plan(0, true, true).expect("a read share is set");
        assert_eq!(p.prios[0], vec![0, 1 << 13], "reads: own (0), then RT/0");
        assert!(p.prios[1].is_empty(), "writes have no share");
        assert_eq!(
            p.rules[0],
            vec![PrioRule {
                bs: None,
                shares: vec![(25, 1)]
            }]
        );
        assert_eq!(
            c.plan(0, false, true),
            None,
            "a write-only job: nothing to plan"
        );
        let c = CmdPrio {
            class: [Some(3), Some(3)],
            level: [5, 5],
            bssplit: Some(parse_bssplit("4k/10:4k/20/1/0:8k/5/3/5", B).unwrap().0),
            ..CmdPrio::default()
        };
        let p = c.plan(2 << 13 | 4, true, false).unwrap();
        assert_eq!(
            p.prios[0],
            vec![2 << 13 | 4, 3 << 13 | 5, 1 << 13],
            "own BE/4, implicit idle/5, RT/0; 8k's idle/5 reuses index 1"
        );
        assert_eq!(
            p.rules[0],
            vec![
                PrioRule {
                    bs: Some(4096),
                    shares: vec![(10, 1), (20, 2)]
                },
                PrioRule {
                    bs: Some(8192),
                    shares: vec![(5, 1)]
                }
            ]
        );
        let both = CmdPrio {
            percentage: [1, 1],
            bssplit: c.bssplit.clone(),
            ..CmdPrio::default()
        };
        assert_eq!(
            both.validate(),
            Err("cmdprio_percentage and cmdprio_bssplit options are mutually exclusive".into())
        );
    }
}
