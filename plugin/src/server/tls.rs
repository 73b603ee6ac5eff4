//! AutoMTLS: the server's self-signed certificate, and a client verifier that accepts
//! exactly the certificate Terraform passed in `PLUGIN_CLIENT_CERT`.
//!
//! go-plugin's client certificate is self-signed with ECDSA P-521 and SHA-512, and it is a
//! CA certificate; webpki refuses a CA certificate as an end entity, so the verifier pins
//! the certificate instead: the presented certificate must be byte-for-byte the one in
//! the environment, and the handshake signature must verify with its key (aws-lc-rs
//! verifies P-521; ring does not).

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, Error, ServerConfig, SignatureScheme};

/// Accepts exactly one client certificate.
#[derive(Debug)]
pub(crate) struct PinnedClientCert {
    cert: CertificateDer<'static>,
    provider: Arc<CryptoProvider>,
}

impl ClientCertVerifier for PinnedClientCert {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, Error> {
        if intermediates.is_empty() && end_entity.as_ref() == self.cert.as_ref() {
            Ok(ClientCertVerified::assertion())
        } else {
            Err(Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The server certificate (DER) and the TLS configuration that requires the client
/// certificate in `client_pem`.
pub(crate) fn server_config(client_pem: &str) -> Result<(Vec<u8>, ServerConfig), String> {
    let mut reader = client_pem.as_bytes();
    let cert = rustls_pemfile::certs(&mut reader)
        .next()
        .ok_or("PLUGIN_CLIENT_CERT holds no certificate")?
        .map_err(|e| format!("PLUGIN_CLIENT_CERT is not a PEM certificate: {e}"))?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());

    // What go-plugin's client pins: a self-signed CA certificate for "localhost".
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
        .map_err(|e| format!("generating the server key: {e}"))?;
    let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()])
        .map_err(|e| format!("certificate parameters: {e}"))?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "localhost");
    params
        .distinguished_name
        .push(rcgen::DnType::OrganizationName, "HashiCorp");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::DigitalSignature,
        rcgen::KeyUsagePurpose::KeyEncipherment,
        rcgen::KeyUsagePurpose::KeyAgreement,
        rcgen::KeyUsagePurpose::KeyCertSign,
    ];
    params.extended_key_usages = vec![
        rcgen::ExtendedKeyUsagePurpose::ServerAuth,
        rcgen::ExtendedKeyUsagePurpose::ClientAuth,
    ];
    let now = std::time::SystemTime::now();
    params.not_before = (now - std::time::Duration::from_secs(30)).into();
    params.not_after = (now + std::time::Duration::from_secs(262_980 * 3600)).into();
    let server_cert = params
        .self_signed(&key)
        .map_err(|e| format!("signing the server certificate: {e}"))?;
    let der = server_cert.der().to_vec();

    let verifier = Arc::new(PinnedClientCert {
        cert: cert.into_owned(),
        provider: provider.clone(),
    });
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS versions: {e}"))?
        .with_client_cert_verifier(verifier)
        .with_single_cert(
            vec![CertificateDer::from(der.clone())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .map_err(|e| format!("TLS configuration: {e}"))?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok((der, config))
}
