//! checksum-demo's build script: resolve the `sha1` facility from the enabled features and the
//! `CHECKSUM_DEMO_*` variables, emit `cfg(checksum_demo_sha1 = "...")`, and write the
//! build-options table.

#[path = "src/spec.rs"]
mod spec;

fn main() {
    let build = flagsplit_config::script::Build::new(&spec::SPEC);
    let Some(resolved) = build.resolve_and_emit() else {
        return;
    };
    build.write_build_info(&resolved, &Default::default());
}
