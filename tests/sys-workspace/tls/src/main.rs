//! Prints the version of the OpenSSL it runs with, and whether a TLS client context can be made.
fn main() {
    println!("{}", openssl::version::version());
    match openssl::ssl::SslContext::builder(openssl::ssl::SslMethod::tls_client()) {
        Ok(_) => println!("a TLS client context"),
        Err(e) => {
            eprintln!("tls: {e}");
            std::process::exit(1);
        }
    }
}
