//! TLS for `hooks serve` (`--tls-cert`, `--tls-key`): rustls with the aws-lc-rs provider,
//! HTTP/1.1 only. Required on an address other than loopback, where the token would
//! otherwise cross the network in clear.

use std::path::Path;
use std::sync::Arc;

use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::pki_types::pem::PemObject as _;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{ServerConfig, crypto};

/// The acceptor serving the certificate chain in the PEM file `cert` with the private key in
/// the PEM file `key`.
pub fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<_, _>>())
        .map_err(|error| format!("--tls-cert {}: {error}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!(
            "--tls-cert {}: no PEM certificate in it",
            cert.display()
        ));
    }
    let private = PrivateKeyDer::from_pem_file(key)
        .map_err(|error| format!("--tls-key {}: {error}", key.display()))?;
    let mut config =
        ServerConfig::builder_with_provider(Arc::new(crypto::aws_lc_rs::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|error| format!("cannot set up TLS: {error}"))?
            .with_no_client_auth()
            .with_single_cert(chain, private)
            .map_err(|error| {
                format!(
                    "--tls-cert {} with --tls-key {}: {error}",
                    cert.display(),
                    key.display()
                )
            })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}
