//! The package graph of the build, from `cargo metadata` (cargo_metadata): which packages an
//! executable holds (its package and every normal dependency, transitively, for the target
//! platform), the workspace the build belongs to, and the packages its `Cargo.lock` knows.

use crate::args::BuildArgs;
use crate::diag::{Code, Diagnostic};
use cargo_metadata::{CargoOpt, DependencyKind, Metadata, MetadataCommand};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A package of the graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    pub name: String,
    pub version: String,
    /// Its `bin` targets.
    pub bins: Vec<String>,
}

/// The workspace: its root, its members and what its `Cargo.lock` lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workspace {
    pub root: PathBuf,
    pub manifest: PathBuf,
    pub members: BTreeSet<String>,
    /// Every `bin` target of the members.
    pub bins: BTreeSet<String>,
    /// `(name, version)` of every package `Cargo.lock` lists.
    pub locked: BTreeSet<(String, String)>,
}

impl Workspace {
    /// Every package name `Cargo.lock` lists.
    pub fn package_names(&self) -> impl Iterator<Item = &str> {
        self.locked.iter().map(|(n, _)| n.as_str())
    }

    /// Whether a package of a build belongs here: listed in `Cargo.lock` with its version and,
    /// for a path package (whose id holds its directory), in the workspace's package graph
    /// (a copy of the workspace elsewhere has other ids).
    pub fn holds(&self, graph: &Graph, package_id: &str, name: &str, version: &str) -> bool {
        self.locked
            .contains(&(name.to_string(), version.to_string()))
            && (local_path(package_id).is_none() || graph.packages.contains_key(package_id))
    }
}

/// The directory of a path package (`path+file:///ws/tls-a#0.1.0`).
pub fn local_path(package_id: &str) -> Option<PathBuf> {
    let rest = package_id.strip_prefix("path+file://")?;
    let path = rest.split(['#', '?']).next()?;
    Some(PathBuf::from(path))
}

/// The packages and their normal dependencies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Graph {
    pub packages: HashMap<String, Package>,
    deps: HashMap<String, Vec<String>>,
}

impl Graph {
    /// The packages whose code an executable of `package` holds: the package and its normal
    /// dependencies, transitively (build- and dev-dependencies are not linked into it).
    pub fn reachable<'a>(&'a self, package: &'a str) -> HashSet<&'a str> {
        let mut seen = HashSet::new();
        let mut stack = vec![package];
        while let Some(p) = stack.pop() {
            if !seen.insert(p) {
                continue;
            }
            if let Some(deps) = self.deps.get(p) {
                stack.extend(deps.iter().map(String::as_str));
            }
        }
        seen
    }
}

fn command(args: &BuildArgs, manifest: Option<&Path>) -> MetadataCommand {
    let mut cmd = MetadataCommand::new();
    if let Some(m) = manifest {
        cmd.manifest_path(m);
    }
    cmd.other_options(args.metadata_args());
    cmd
}

fn failed(e: cargo_metadata::Error) -> Diagnostic {
    Diagnostic::error(
        Code::NoPackageGraph,
        format!("cargo metadata failed, so which crates each executable holds cannot be told: {e}"),
    )
    .note("fix", "run it in the workspace of the build (--manifest-path), with the flags the build had (--offline, --config)")
}

/// The workspace `--manifest-path` (or the current directory) names.
pub fn workspace(args: &BuildArgs) -> Result<Workspace, Diagnostic> {
    let mut cmd = command(args, args.manifest.manifest_path.as_deref());
    cmd.no_deps();
    let m = cmd.exec().map_err(failed)?;
    let root = PathBuf::from(m.workspace_root.as_std_path());
    let lock_path = root.join("Cargo.lock");
    let lock = std::fs::read_to_string(&lock_path).map_err(|e| {
        Diagnostic::error(
            Code::NoPackageGraph,
            format!("cannot read {}: {e}", lock_path.display()),
        )
        .note("fix", "build once, or run `cargo generate-lockfile`, so that the lock file lists the build's packages")
    })?;
    let bins = m
        .workspace_packages()
        .iter()
        .flat_map(|p| {
            p.targets
                .iter()
                .filter(|t| t.is_bin())
                .map(|t| t.name.clone())
        })
        .collect();
    Ok(Workspace {
        manifest: root.join("Cargo.toml"),
        root,
        members: m
            .workspace_members
            .iter()
            .map(|id| id.repr.clone())
            .collect(),
        bins,
        locked: locked_packages(&lock),
    })
}

/// `(name, version)` of each `[[package]]` of a `Cargo.lock`.
fn locked_packages(text: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let Ok(root) = toml_span::parse(text) else {
        return out;
    };
    let packages = root
        .as_table()
        .and_then(|t| t.get("package"))
        .and_then(|p| p.as_array());
    for p in packages.into_iter().flatten() {
        let Some(t) = p.as_table() else { continue };
        let field = |k: &str| t.get(k).and_then(|v| v.as_str()).map(str::to_string);
        if let (Some(name), Some(version)) = (field("name"), field("version")) {
            out.insert((name, version));
        }
    }
    out
}

/// The graph of the packages as built: every member with exactly the features the build gave it
/// (`features`, by package id), for `platform` (a target triple).
pub fn graph(
    args: &BuildArgs,
    workspace: &Workspace,
    features: &BTreeMap<String, BTreeSet<String>>,
    platform: Option<&str>,
) -> Result<Graph, Diagnostic> {
    let mut cmd = command(args, Some(&workspace.manifest));
    let mut wanted = Vec::new();
    for (id, set) in features {
        if workspace.members.contains(id) {
            let (name, _) = crate::cargo::package_name_version(id);
            wanted.extend(set.iter().map(|f| format!("{name}/{f}")));
        }
    }
    cmd.features(CargoOpt::NoDefaultFeatures);
    if !wanted.is_empty() {
        cmd.features(CargoOpt::SomeFeatures(wanted));
    }
    if let Some(p) = platform {
        cmd.other_options(
            args.metadata_args()
                .into_iter()
                .chain(["--filter-platform".to_string(), p.to_string()])
                .collect::<Vec<_>>(),
        );
    }
    let m = cmd.exec().map_err(failed)?;
    Ok(from_metadata(&m))
}

fn from_metadata(m: &Metadata) -> Graph {
    let packages = m
        .packages
        .iter()
        .map(|p| {
            (
                p.id.repr.clone(),
                Package {
                    name: p.name.to_string(),
                    version: p.version.to_string(),
                    bins: p
                        .targets
                        .iter()
                        .filter(|t| t.is_bin())
                        .map(|t| t.name.clone())
                        .collect(),
                },
            )
        })
        .collect();
    let deps = m
        .resolve
        .iter()
        .flat_map(|r| &r.nodes)
        .map(|n| {
            let normal = n
                .deps
                .iter()
                .filter(|d| d.dep_kinds.iter().any(|k| k.kind == DependencyKind::Normal))
                .map(|d| d.pkg.repr.clone())
                .collect();
            (n.id.repr.clone(), normal)
        })
        .collect();
    Graph { packages, deps }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_files_packages() {
        let lock = "version = 4\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\n\n[[package]]\nname = \"libc\"\nversion = \"0.2.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
        let set = locked_packages(lock);
        assert!(set.contains(&("libc".into(), "0.2.1".into())));
        assert_eq!(set.len(), 2);
        let w = Workspace {
            root: "/ws".into(),
            locked: set,
            ..Workspace::default()
        };
        let app = Package {
            name: "app".into(),
            version: "0.1.0".into(),
            bins: vec![],
        };
        let graph = Graph {
            packages: HashMap::from([("path+file:///ws/app#0.1.0".to_string(), app)]),
            deps: HashMap::new(),
        };
        let libc = "registry+https://github.com/rust-lang/crates.io-index#libc@0.2.1";
        assert!(w.holds(&graph, "path+file:///ws/app#0.1.0", "app", "0.1.0"));
        assert!(!w.holds(&graph, "path+file:///elsewhere/app#0.1.0", "app", "0.1.0"));
        assert!(!w.holds(&graph, "path+file:///ws/app#0.2.0", "app", "0.2.0"));
        assert!(w.holds(&graph, libc, "libc", "0.2.1"));
        assert!(!w.holds(&graph, "registry+https://x#serde@1.0.0", "serde", "1.0.0"));
    }

    #[test]
    fn normal_dependencies_only() {
        let g = Graph {
            packages: ["app", "lib", "sys", "builddep"]
                .iter()
                .map(|n| {
                    (
                        n.to_string(),
                        Package {
                            name: n.to_string(),
                            version: "1.0.0".into(),
                            bins: vec![],
                        },
                    )
                })
                .collect(),
            deps: HashMap::from([
                ("app".to_string(), vec!["lib".to_string()]),
                (
                    "lib".to_string(),
                    vec!["sys".to_string(), "app".to_string()],
                ),
            ]),
        };
        let r = g.reachable("app");
        assert_eq!(r, HashSet::from(["app", "lib", "sys"]));
        assert_eq!(g.reachable("sys"), HashSet::from(["sys"]));
    }

    #[test]
    fn path_packages() {
        assert_eq!(
            local_path("path+file:///ws/crates/cli#flagsplit-cli@0.1.0"),
            Some(PathBuf::from("/ws/crates/cli"))
        );
        assert_eq!(local_path("registry+https://x#serde@1.0.0"), None);
    }
}
