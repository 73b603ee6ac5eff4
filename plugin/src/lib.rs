#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod convert;
mod diagnostic;
pub mod framework;
mod provider;
mod server;
pub mod testing;

/// The code generated from `proto/`; internal, never part of the API.
#[allow(
    missing_docs,
    dead_code,
    unreachable_pub,
    clippy::all,
    clippy::pedantic
)]
pub(crate) mod proto {
    pub(crate) mod tfplugin5 {
        tonic::include_proto!("tfplugin5");
    }
    pub(crate) mod tfplugin6 {
        tonic::include_proto!("tfplugin6");
    }
    pub(crate) mod plugin {
        tonic::include_proto!("plugin");
    }
}

pub use diagnostic::{has_errors, Diagnostic, Diagnostics, Severity};
pub use provider::*;
pub use server::core::VALUE_LOG_ENV;
pub use server::{
    serve, serve_main, ServeConfig, ServeError, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE,
};
