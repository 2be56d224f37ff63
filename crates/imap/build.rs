//! Emits the `cfg`s (`flagsplit_tls = "rustls"`, ...) of the selection `flagsplit-hash`'s build
//! script resolved, read from `DEP_FLAGSPLIT_*`: this crate never decides on its own.

fn main() {
    flagsplit_config::script::follow();
}
