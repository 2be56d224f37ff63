//! The runs of `cargo flagsplit each`: from the facilities a build recorded (every provider of
//! each, the feature that compiles it and the variable that selects it), the selections to run
//! so that every provider is selected at least once (`--each-provider`), or every pair of
//! providers of two different facilities is selected together at least once (`--pairwise`, a
//! covering array of strength 2). Pure: `each` discovers the facilities and runs the plan.

use crate::model::CrateReport;
use serde::Serialize;
use std::collections::BTreeSet;

/// One provider a plan may select.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Provider {
    pub name: String,
    /// The crate's feature that compiles it (none: always compiled).
    pub feature: Option<String>,
    /// Compiled in the discovery build (its feature on through the graph or the command).
    pub compiled: bool,
    /// The C libraries it links.
    pub links: Vec<String>,
    /// The shared name it answers to (`openssl`), for a policy's rules.
    pub answers_to: Option<String>,
    /// The properties its table declares (`collision-detection`).
    pub properties: Vec<String>,
}

/// One facility of one crate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Facility {
    #[serde(rename = "crate")]
    pub crate_name: String,
    pub name: String,
    pub kind: Option<String>,
    /// The crate's variable that selects its provider (`TLS_A_TLS_PROVIDER`).
    pub variable: String,
    /// A workspace member: its features can be turned on with `--features crate/feature`.
    pub member: bool,
    /// What the discovery build selected, with nothing set by this plan.
    pub default: String,
    pub providers: Vec<Provider>,
}

impl Facility {
    /// `crate:facility`, as options and the summary name it.
    pub fn id(&self) -> String {
        format!("{}:{}", self.crate_name, self.name)
    }
}

/// How the runs are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    EachProvider,
    Pairwise,
}

/// What narrows or widens a plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filters {
    /// Only these facilities (`facility` or `crate:facility`).
    pub facilities: Vec<String>,
    /// Only facilities of these kinds.
    pub kinds: Vec<String>,
    /// Never select these providers (`provider`, `facility:provider` or `crate:facility:provider`).
    pub skip: Vec<String>,
    /// Keep these providers selected in every run of their facility (`provider`,
    /// `facility:provider` or `crate:facility:provider`): the others of that facility are not run.
    pub keep: Vec<String>,
    /// One more run first, with nothing set: the build as its users get it.
    pub include_default: bool,
    /// Providers a policy rules out (`[[deny]]`, or not what a `[[require]]` asks for).
    pub excluded: Vec<Excluded>,
}

/// A provider ruled out by a policy, and the rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excluded {
    pub crate_name: String,
    pub facility: String,
    pub provider: String,
    /// The rule, as the policy says it (`[[require]] property = "collision-detection"` at FILE:LINE:COL).
    pub rule: String,
}

/// One selection of one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pick {
    #[serde(rename = "crate")]
    pub crate_name: String,
    pub facility: String,
    pub provider: String,
    pub variable: String,
}

/// One run: the variables and features it sets, and the selections it must get.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Run {
    /// 1-based.
    pub number: usize,
    /// The run with nothing set (`--include-default`): its selections are the defaults.
    pub default: bool,
    pub picks: Vec<Pick>,
    /// `NAME=value` for each variable set.
    pub env: Vec<(String, String)>,
    /// `crate/feature`, for `--features`.
    pub features: Vec<String>,
}

impl Run {
    /// The selections, `crate:facility=provider` each, for the summary.
    pub fn label(&self) -> String {
        let picks: Vec<String> = self
            .picks
            .iter()
            .map(|p| format!("{}:{}={}", p.crate_name, p.facility, p.provider))
            .collect();
        if self.default {
            format!("(default) {}", picks.join(" "))
        } else {
            picks.join(" ")
        }
    }
}

/// A provider the plan leaves out, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LeftOut {
    #[serde(rename = "crate")]
    pub crate_name: String,
    pub facility: String,
    pub provider: String,
    /// `skipped` (asked for), `kept-out` (another provider kept), `policy` (a policy rules it
    /// out), or `unreachable`.
    pub why: String,
    pub detail: String,
}

/// The plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Plan {
    pub strategy: Strategy,
    pub facilities: Vec<Facility>,
    pub runs: Vec<Run>,
    pub left_out: Vec<LeftOut>,
    /// Providers the runs select, over all facilities.
    pub providers: usize,
    /// Pairs of providers of two different facilities the runs must cover (`--pairwise`), and
    /// the pairs they cover.
    pub pairs: usize,
    pub pairs_covered: usize,
    /// The runs `cargo hack --feature-powerset` makes over the same provider features: 2^n per
    /// package with n provider features, summed.
    pub powerset: u128,
}

/// A bad option: a name that matches nothing (an error, never ignored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError(pub String);

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlanError {}

/// The facilities of the crates a build recorded, each crate once (a crate built for the host
/// and for the target records the same table). `member` says which packages are workspace
/// members (by package id).
pub fn facilities(crates: &[CrateReport], member: impl Fn(&str) -> bool) -> Vec<Facility> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for c in crates {
        if !seen.insert((c.name.clone(), c.version.clone())) {
            continue;
        }
        for f in &c.options.facilities {
            out.push(Facility {
                crate_name: c.name.clone(),
                name: f.name.clone(),
                kind: f.kind.clone(),
                variable: f.variable.clone(),
                member: member(&c.package_id),
                default: f.selected.clone(),
                providers: f
                    .providers
                    .iter()
                    .map(|p| Provider {
                        name: p.name.clone(),
                        feature: p.feature.clone(),
                        compiled: p.compiled,
                        links: p.links.clone(),
                        answers_to: p.answers_to.clone(),
                        properties: p.properties.clone(),
                    })
                    .collect(),
            });
        }
    }
    out.sort_by(|a, b| (&a.crate_name, &a.name).cmp(&(&b.crate_name, &b.name)));
    out
}

/// Whether `pattern` (`provider`, `facility:provider`, `crate:facility:provider`) names provider
/// `p` of `f`.
fn names_provider(pattern: &str, f: &Facility, p: &str) -> bool {
    let parts: Vec<&str> = pattern.split(':').collect();
    match parts.as_slice() {
        [prov] => *prov == p,
        [fac, prov] => *fac == f.name && *prov == p,
        [krate, fac, prov] => *krate == f.crate_name && *fac == f.name && *prov == p,
        _ => false,
    }
}

fn names_facility(pattern: &str, f: &Facility) -> bool {
    match pattern.split_once(':') {
        Some((krate, fac)) => krate == f.crate_name && fac == f.name,
        None => pattern == f.name,
    }
}

/// An option's name that matched nothing: an error with the nearest name (of the full names, or
/// of their last parts: `opensl` is nearest `openssl`).
fn unmatched(option: &str, given: &str, names: &[String]) -> PlanError {
    let last = given.rsplit(':').next().unwrap_or(given);
    let near = flagsplit_config::closest(given, names.iter().map(String::as_str))
        .or_else(|| {
            flagsplit_config::closest(last, names.iter().filter_map(|n| n.rsplit(':').next()))
        })
        .map(|n| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default();
    let list = if names.is_empty() {
        "none: the build recorded no flagsplit-config facility".to_string()
    } else {
        names.join(", ")
    };
    PlanError(format!(
        "{option} {given} matches nothing in this build{near}; the names are: {list}"
    ))
}

/// The plan for the facilities `all` with `strategy` and `filters`; its `powerset` counts, per
/// crate, 2^n for its n provider features (what cargo-hack's `--feature-powerset` makes of them).
pub fn plan(all: &[Facility], strategy: Strategy, filters: &Filters) -> Result<Plan, PlanError> {
    // A build without facilities would pass without running anything: refused.
    if all.is_empty() {
        return Err(PlanError(
            "no crate of this build uses flagsplit-config (0.4.0 or later), so there is no provider to plan: check the command's --manifest-path, --package or --workspace".to_string(),
        ));
    }
    // Facilities: --facility and --kind narrow; each name must match something.
    let facility_names: Vec<String> = all.iter().map(Facility::id).collect();
    for given in &filters.facilities {
        if !all.iter().any(|f| names_facility(given, f)) {
            return Err(unmatched("--facility", given, &facility_names));
        }
    }
    let kinds: Vec<String> = all
        .iter()
        .filter_map(|f| f.kind.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    for given in &filters.kinds {
        if !kinds.contains(given) {
            return Err(unmatched("--kind", given, &kinds));
        }
    }
    let chosen: Vec<Facility> = all
        .iter()
        .filter(|f| {
            (filters.facilities.is_empty()
                || filters.facilities.iter().any(|g| names_facility(g, f)))
                && (filters.kinds.is_empty()
                    || f.kind.as_ref().is_some_and(|k| filters.kinds.contains(k)))
        })
        .cloned()
        .collect();
    let provider_names: Vec<String> = chosen
        .iter()
        .flat_map(|f| {
            f.providers
                .iter()
                .map(move |p| format!("{}:{}", f.id(), p.name))
        })
        .collect();
    for (option, list) in [("--skip", &filters.skip), ("--keep", &filters.keep)] {
        for given in list {
            let hit = chosen.iter().any(|f| {
                f.providers
                    .iter()
                    .any(|p| names_provider(given, f, &p.name))
            });
            if !hit {
                return Err(unmatched(option, given, &provider_names));
            }
        }
    }
    // Each facility's candidates, in its table's order.
    let mut left_out = Vec::new();
    let mut candidates: Vec<Vec<usize>> = Vec::new();
    for f in &chosen {
        let kept: Vec<usize> = (0..f.providers.len())
            .filter(|&i| {
                filters
                    .keep
                    .iter()
                    .any(|k| names_provider(k, f, &f.providers[i].name))
            })
            .collect();
        let mut list = Vec::new();
        for (i, p) in f.providers.iter().enumerate() {
            let mut leave = |why: &str, detail: String| {
                left_out.push(LeftOut {
                    crate_name: f.crate_name.clone(),
                    facility: f.name.clone(),
                    provider: p.name.clone(),
                    why: why.to_string(),
                    detail,
                })
            };
            let ruled_out = filters.excluded.iter().find(|e| {
                e.crate_name == f.crate_name && e.facility == f.name && e.provider == p.name
            });
            if let Some(e) = ruled_out {
                leave("policy", e.rule.clone());
            } else if filters.skip.iter().any(|s| names_provider(s, f, &p.name)) {
                leave("skipped", "--skip".to_string());
            } else if !kept.is_empty() && !kept.contains(&i) {
                leave(
                    "kept-out",
                    "--keep keeps another provider of this facility".to_string(),
                );
            } else if let (Some(feature), false, false) = (&p.feature, p.compiled, f.member) {
                leave(
                    "unreachable",
                    format!(
                        "its feature `{feature}` is off and {} is not a workspace member, so `--features {}/{feature}` cannot turn it on: turn it on in the dependent's Cargo.toml, or run from {}'s own workspace",
                        f.crate_name, f.crate_name, f.crate_name
                    ),
                );
            } else {
                list.push(i);
            }
        }
        if list.is_empty()
            && f.providers.iter().all(|p| {
                filters.excluded.iter().any(|e| {
                    e.crate_name == f.crate_name && e.facility == f.name && e.provider == p.name
                })
            })
        {
            return Err(PlanError(format!(
                "no provider of {}'s facility {} is allowed by the policy ({}): the build cannot hold it",
                f.crate_name,
                f.name,
                filters
                    .excluded
                    .iter()
                    .filter(|e| e.crate_name == f.crate_name && e.facility == f.name)
                    .map(|e| format!("{}: {}", e.provider, e.rule))
                    .collect::<Vec<_>>()
                    .join("; ")
            )));
        }
        candidates.push(list);
    }
    // Facilities left with nothing to select keep their default and are not planned.
    let planned: Vec<usize> = (0..chosen.len())
        .filter(|&i| !candidates[i].is_empty())
        .collect();
    let levels: Vec<usize> = planned.iter().map(|&i| candidates[i].len()).collect();
    let rows: Vec<Vec<usize>> = match strategy {
        Strategy::EachProvider => each_provider(&levels),
        Strategy::Pairwise => pairwise(&levels),
    };
    let mut runs = Vec::new();
    if filters.include_default {
        runs.push(Run {
            number: 1,
            default: true,
            picks: planned
                .iter()
                .map(|&i| pick(&chosen[i], &chosen[i].default))
                .collect(),
            env: Vec::new(),
            features: Vec::new(),
        });
    }
    for row in &rows {
        let mut picks = Vec::new();
        let mut env = Vec::new();
        let mut features = Vec::new();
        for (slot, &fi) in planned.iter().enumerate() {
            let f = &chosen[fi];
            let p = &f.providers[candidates[fi][row[slot]]];
            picks.push(pick(f, &p.name));
            env.push((f.variable.clone(), p.name.clone()));
            if let (Some(feature), false) = (&p.feature, p.compiled) {
                features.push(format!("{}/{feature}", f.crate_name));
            }
        }
        runs.push(Run {
            number: runs.len() + 1,
            default: false,
            picks,
            env,
            features,
        });
    }
    if runs.is_empty() {
        return Err(PlanError(
            "the options leave no provider to select (every one skipped, kept out or unreachable): nothing would run".to_string(),
        ));
    }
    let (pairs, pairs_covered) = pair_coverage(&levels, &rows);
    let mut per_package: std::collections::BTreeMap<&str, BTreeSet<&str>> = Default::default();
    for f in &chosen {
        let entry = per_package.entry(f.crate_name.as_str()).or_default();
        entry.extend(f.providers.iter().filter_map(|p| p.feature.as_deref()));
    }
    let powerset = per_package
        .values()
        .map(|s| 1u128.checked_shl(s.len() as u32).unwrap_or(u128::MAX))
        .fold(0u128, u128::saturating_add);
    Ok(Plan {
        strategy,
        providers: levels.iter().sum(),
        facilities: chosen,
        runs,
        left_out,
        pairs,
        pairs_covered,
        powerset,
    })
}

fn pick(f: &Facility, provider: &str) -> Pick {
    Pick {
        crate_name: f.crate_name.clone(),
        facility: f.name.clone(),
        provider: provider.to_string(),
        variable: f.variable.clone(),
    }
}

/// Rows selecting every level of every factor at least once: as many rows as the largest
/// factor has levels; a factor with fewer levels repeats its first (its default, when the
/// table lists it first) in the rows after its last.
pub fn each_provider(levels: &[usize]) -> Vec<Vec<usize>> {
    let n = levels.iter().copied().max().unwrap_or(0);
    (0..n)
        .map(|r| levels.iter().map(|&l| if r < l { r } else { 0 }).collect())
        .collect()
}

/// A covering array of strength 2: rows such that every pair of levels of two different factors
/// is in some row. Greedy (as AETG builds them): each new row starts from the first pair not yet
/// covered, then gives each other factor the level that covers the most uncovered pairs with the
/// factors already set. Deterministic; with one factor, its levels.
pub fn pairwise(levels: &[usize]) -> Vec<Vec<usize>> {
    let k = levels.len();
    if k < 2 {
        return each_provider(levels);
    }
    // (factor a, level x, factor b, level y) with a < b, ordered: the first is the one to start from.
    let mut uncovered: BTreeSet<(usize, usize, usize, usize)> = BTreeSet::new();
    for a in 0..k {
        for b in (a + 1)..k {
            for x in 0..levels[a] {
                for y in 0..levels[b] {
                    uncovered.insert((a, x, b, y));
                }
            }
        }
    }
    let mut rows = Vec::new();
    while let Some(&(a, x, b, y)) = uncovered.iter().next() {
        let mut row: Vec<Option<usize>> = vec![None; k];
        row[a] = Some(x);
        row[b] = Some(y);
        for c in 0..k {
            if row[c].is_some() {
                continue;
            }
            let gain = |level: usize| -> usize {
                row.iter()
                    .enumerate()
                    .filter_map(|(d, v)| v.map(|v| (d, v)))
                    .filter(|&(d, v)| {
                        let pair = if d < c {
                            (d, v, c, level)
                        } else {
                            (c, level, d, v)
                        };
                        uncovered.contains(&pair)
                    })
                    .count()
            };
            let best = (0..levels[c])
                .max_by_key(|&l| (gain(l), std::cmp::Reverse(l)))
                .unwrap_or(0);
            row[c] = Some(best);
        }
        let row: Vec<usize> = row.into_iter().map(|v| v.unwrap_or(0)).collect();
        for a in 0..k {
            for b in (a + 1)..k {
                uncovered.remove(&(a, row[a], b, row[b]));
            }
        }
        rows.push(row);
    }
    rows
}

/// The pairs of levels of two different factors, and how many of them `rows` cover.
pub fn pair_coverage(levels: &[usize], rows: &[Vec<usize>]) -> (usize, usize) {
    let k = levels.len();
    let mut total = 0;
    let mut covered = 0;
    for a in 0..k {
        for b in (a + 1)..k {
            let mut seen = BTreeSet::new();
            for r in rows {
                seen.insert((r[a], r[b]));
            }
            total += levels[a] * levels[b];
            covered += seen.len();
        }
    }
    (total, covered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facility(krate: &str, name: &str, providers: &[(&str, Option<&str>)]) -> Facility {
        Facility {
            crate_name: krate.to_string(),
            name: name.to_string(),
            kind: Some(name.to_string()),
            variable: format!("{}_{}_PROVIDER", krate.to_uppercase(), name.to_uppercase()),
            member: true,
            default: providers[0].0.to_string(),
            providers: providers
                .iter()
                .map(|(p, feature)| Provider {
                    name: p.to_string(),
                    feature: feature.map(str::to_string),
                    compiled: feature.is_none(),
                    links: Vec::new(),
                    answers_to: None,
                    properties: Vec::new(),
                })
                .collect(),
        }
    }

    fn graph() -> Vec<Facility> {
        vec![
            facility("a", "tls", &[("none", None), ("openssl", Some("openssl"))]),
            facility(
                "b",
                "hash",
                &[("block", None), ("openssl", Some("openssl")), ("dc", None)],
            ),
            facility("c", "zlib", &[("miniz", None), ("system", Some("system"))]),
        ]
    }

    #[test]
    fn each_provider_runs_as_many_times_as_the_largest_facility_has_providers() {
        let p = plan(&graph(), Strategy::EachProvider, &Filters::default()).unwrap();
        assert_eq!(p.runs.len(), 3);
        for f in &p.facilities {
            for prov in &f.providers {
                assert!(
                    p.runs
                        .iter()
                        .any(|r| r.picks.iter().any(|k| k.crate_name == f.crate_name
                            && k.facility == f.name
                            && k.provider == prov.name)),
                    "{}:{} never selected",
                    f.id(),
                    prov.name
                );
            }
        }
        // A provider's feature is turned on only in the runs that select it.
        assert_eq!(
            p.runs[1].features,
            vec!["a/openssl", "b/openssl", "c/system"]
        );
        assert!(p.runs[2].features.is_empty());
        assert_eq!(
            p.runs[0].env[0],
            ("A_TLS_PROVIDER".to_string(), "none".to_string())
        );
        assert_eq!(p.powerset, 2 + 2 + 2);
    }

    #[test]
    fn pairwise_covers_every_pair_in_fewer_runs_than_the_product() {
        let levels = [2, 3, 2, 4, 3, 2];
        let rows = pairwise(&levels);
        let (total, covered) = pair_coverage(&levels, &rows);
        assert_eq!(total, covered);
        // At least the two largest factors' product; far fewer than all combinations (288).
        assert!(rows.len() >= 12 && rows.len() <= 20, "{}", rows.len());
        let p = plan(&graph(), Strategy::Pairwise, &Filters::default()).unwrap();
        assert_eq!(p.pairs, 2 * 3 + 2 * 2 + 3 * 2);
        assert_eq!(p.pairs, p.pairs_covered);
    }

    #[test]
    fn options_narrow_and_a_name_that_matches_nothing_is_an_error() {
        let f = Filters {
            skip: vec!["hash:dc".into()],
            facilities: vec!["b:hash".into(), "tls".into()],
            include_default: true,
            ..Filters::default()
        };
        let p = plan(&graph(), Strategy::EachProvider, &f).unwrap();
        assert_eq!(p.facilities.len(), 2);
        assert_eq!(p.runs.len(), 3);
        assert!(p.runs[0].default && p.runs[0].env.is_empty());
        assert_eq!(p.left_out[0].provider, "dc");
        let bad = Filters {
            skip: vec!["opensl".into()],
            ..Filters::default()
        };
        let e = plan(&graph(), Strategy::EachProvider, &bad).unwrap_err();
        assert!(
            e.0.contains("--skip opensl matches nothing in this build (did you mean `openssl`?)"),
            "{e}"
        );
        let bad = Filters {
            kinds: vec!["tsl".into()],
            ..Filters::default()
        };
        let e = plan(&graph(), Strategy::EachProvider, &bad).unwrap_err();
        assert!(e.0.contains("did you mean `tls`?"), "{e}");
        let policy = Filters {
            excluded: vec![Excluded {
                crate_name: "b".into(),
                facility: "hash".into(),
                provider: "block".into(),
                rule: "[[deny]] provider = \"block\"".into(),
            }],
            ..Filters::default()
        };
        let p = plan(&graph(), Strategy::EachProvider, &policy).unwrap();
        assert_eq!(p.runs.len(), 2);
        assert!(p.runs.iter().all(|r| r.picks[1].provider != "block"));
        assert_eq!(p.left_out[0].why, "policy");
        let none_left = Filters {
            excluded: ["none", "openssl"]
                .iter()
                .map(|prov| Excluded {
                    crate_name: "a".into(),
                    facility: "tls".into(),
                    provider: prov.to_string(),
                    rule: "r".into(),
                })
                .collect(),
            ..Filters::default()
        };
        let e = plan(&graph(), Strategy::EachProvider, &none_left).unwrap_err();
        assert!(
            e.0.contains("no provider of a's facility tls is allowed by the policy"),
            "{e}"
        );
        let keep = Filters {
            keep: vec!["b:hash:dc".into()],
            ..Filters::default()
        };
        let p = plan(&graph(), Strategy::EachProvider, &keep).unwrap();
        assert!(p.runs.iter().all(|r| r.picks[1].provider == "dc"));
        assert_eq!(p.left_out.len(), 2);
    }

    #[test]
    fn nothing_to_plan_is_an_error_not_a_pass() {
        let e = plan(&[], Strategy::EachProvider, &Filters::default()).unwrap_err();
        assert!(
            e.0.contains("no crate of this build uses flagsplit-config"),
            "{e}"
        );
        let all_skipped = Filters {
            skip: vec!["none".into(), "openssl".into()],
            facilities: vec!["tls".into()],
            ..Filters::default()
        };
        let e = plan(&graph(), Strategy::EachProvider, &all_skipped).unwrap_err();
        assert!(e.0.contains("leave no provider to select"), "{e}");
    }

    #[test]
    fn a_provider_a_dependency_cannot_compile_is_left_out_not_dropped() {
        let mut g = graph();
        g[2].member = false;
        let p = plan(&g, Strategy::EachProvider, &Filters::default()).unwrap();
        assert_eq!(p.left_out.len(), 1);
        assert_eq!(p.left_out[0].why, "unreachable");
        assert!(p.left_out[0].detail.contains("not a workspace member"));
    }
}
