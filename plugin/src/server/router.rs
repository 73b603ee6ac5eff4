//! The tfplugin5 and tfplugin6 `Provider` services as the gRPC server sees them: a request
//! is routed by its method's name to the method of [`Service`] that answers it.
//!
//! tonic's generated server would compile its whole request and response machinery
//! (decoding, the response body, compression, limits) once per method: 67 copies, a
//! quarter of the LLVM IR of this crate. Here that machinery is compiled once: it
//! carries a request's message as bytes and a response as an [`Encode`] trait object, and
//! only the decoding of each request and the encoding of each response are per method.
//! The methods come from the protocol files (`build.rs` writes the lists), so every
//! method of each protocol is served; one the lists lack is answered `UNIMPLEMENTED`, as
//! tonic's own server does.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::{Stream, StreamExt as _};
use prost::bytes::{Buf as _, Bytes};
use prost::Message;
use tonic::body::Body;
use tonic::codec::{BufferSettings, DecodeBuf, EncodeBuf};
use tonic::codegen::http;
use tonic::server::{
    ClientStreamingService, Grpc, NamedService, ServerStreamingService, UnaryService,
};
use tonic::{Request, Response, Status, Streaming};

use super::budget;
use super::erased::Erased;
use super::service::Service;

/// The service both protocol majors answer from.
type Svc = Arc<Service<Erased>>;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A method's answer to come.
type Answer<T> = BoxFuture<Result<Response<T>, Status>>;

/// A response message, of any type.
pub(crate) type Reply = Box<dyn Encode + Send>;

/// The events of a streamed response.
type ReplyStream = Pin<Box<dyn Stream<Item = Result<Reply, Status>> + Send>>;

/// A response message as the encoder writes it.
pub(crate) trait Encode {
    /// Its length on the wire.
    fn size(&self) -> usize;
    /// Writes it (the buffer grows as needed).
    fn write(&self, buf: &mut EncodeBuf<'_>);
}

impl<M: Message> Encode for M {
    fn size(&self) -> usize {
        self.encoded_len()
    }

    fn write(&self, buf: &mut EncodeBuf<'_>) {
        self.encode_raw(buf);
    }
}

fn reply<M: Message + Send + 'static>(message: M) -> Reply {
    Box::new(message)
}

/// Writes a [`Reply`], into a buffer sized once for it: a large answer (a plan of many
/// MB) is written into a buffer of its size, not one grown by doubling to up to twice it.
#[derive(Debug)]
struct ReplyEncoder;

impl tonic::codec::Encoder for ReplyEncoder {
    type Item = Reply;
    type Error = Status;

    fn encode(&mut self, item: Reply, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        buf.reserve(item.size());
        item.write(buf);
        Ok(())
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// Hands over a request's message as its bytes, a slice of tonic's buffer (no copy); the
/// route decodes it.
#[derive(Debug)]
struct BytesDecoder;

impl tonic::codec::Decoder for BytesDecoder {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(buf.copy_to_bytes(buf.remaining())))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// The codec of unary and server-streaming methods: bytes in, [`Reply`] out.
#[derive(Debug)]
struct RawCodec;

impl tonic::codec::Codec for RawCodec {
    type Encode = Reply;
    type Decode = Bytes;
    type Encoder = ReplyEncoder;
    type Decoder = BytesDecoder;

    fn encoder(&mut self) -> ReplyEncoder {
        ReplyEncoder
    }

    fn decoder(&mut self) -> BytesDecoder {
        BytesDecoder
    }
}

/// The codec of a client-streaming method (`WriteStateBytes`), whose handler reads the
/// decoded messages of its stream: [`budget::Decoder`] in, [`Reply`] out.
struct StreamCodec<U> {
    /// The message's protobuf name without the package.
    name: &'static str,
    message: std::marker::PhantomData<U>,
}

impl<U: Message + Default + Send + 'static> tonic::codec::Codec for StreamCodec<U> {
    type Encode = Reply;
    type Decode = U;
    type Encoder = ReplyEncoder;
    type Decoder = budget::Decoder<U>;

    fn encoder(&mut self) -> ReplyEncoder {
        ReplyEncoder
    }

    fn decoder(&mut self) -> budget::Decoder<U> {
        budget::Decoder::new(self.name)
    }
}

/// A request's message, decoded from its bytes after [`budget::check`]. `name` is the
/// message's protobuf name without the package (`CallFunction.Request`).
fn decode<Q: Message + Default>(name: &str, request: Request<Bytes>) -> Result<Request<Q>, Status> {
    let (request, bytes) = checked(name, request)?;
    // As tonic's prost codec answers a message it cannot decode.
    let message = Q::decode(bytes).map_err(|e| Status::internal(e.to_string()))?;
    Ok(request.map(|()| message))
}

/// The request's bytes after [`budget::check`], and the request without them.
fn checked(name: &str, request: Request<Bytes>) -> Result<(Request<()>, Bytes), Status> {
    let (metadata, extensions, bytes) = request.into_parts();
    budget::check(name, &bytes)?;
    Ok((Request::from_parts(metadata, extensions, ()), bytes))
}

/// How one method is served.
#[derive(Clone, Copy)]
enum Route {
    Unary(fn(Svc, Request<Bytes>) -> Answer<Reply>),
    ServerStreaming(fn(Svc, Request<Bytes>) -> Answer<ReplyStream>),
    /// Served whole (its stream is decoded by message type): the HTTP request, the
    /// message size limit.
    ClientStreaming(fn(Svc, http::Request<Body>, usize) -> BoxFuture<http::Response<Body>>),
}

/// Writes `route`, the [`Route`] of each method of one protocol by its name, from the
/// list `build.rs` writes.
macro_rules! provider_routes {
    ($pb:ident; $($kind:ident $method:literal $rust:ident $($ty:ident)::+ $name:literal;)*) => {
        pub(super) fn route(method: &str) -> Option<Route> {
            Some(match method {
                $($method => provider_routes!(
                    @$kind $rust, crate::proto::$pb::$($ty)::+, $name,
                    crate::proto::$pb::provider_server::Provider
                ),)*
                _ => return None,
            })
        }
    };
    (@unary $rust:ident, $ty:ty, $name:literal, $trait:path) => {
        Route::Unary(|svc, request| {
            Box::pin(async move {
                let request = decode::<$ty>($name, request)?;
                Ok(<Service<Erased> as $trait>::$rust(&svc, request).await?.map(reply))
            })
        })
    };
    (@server_streaming $rust:ident, $ty:ty, $name:literal, $trait:path) => {
        Route::ServerStreaming(|svc, request| {
            Box::pin(async move {
                let request = decode::<$ty>($name, request)?;
                let events = <Service<Erased> as $trait>::$rust(&svc, request).await?;
                Ok(events.map(|events| -> ReplyStream {
                    Box::pin(events.map(|event| event.map(reply)))
                }))
            })
        })
    };
    (@client_streaming $rust:ident, $ty:ty, $name:literal, $trait:path) => {
        Route::ClientStreaming(|svc, request, max| {
            struct Call(Svc);
            impl ClientStreamingService<$ty> for Call {
                type Response = Reply;
                type Future = Answer<Reply>;

                fn call(&mut self, request: Request<Streaming<$ty>>) -> Self::Future {
                    let svc = self.0.clone();
                    Box::pin(async move {
                        Ok(<Service<Erased> as $trait>::$rust(&svc, request).await?.map(reply))
                    })
                }
            }
            Box::pin(async move {
                let codec = StreamCodec::<$ty> {
                    name: $name,
                    message: std::marker::PhantomData,
                };
                let mut grpc = Grpc::new(codec)
                    .apply_max_message_size_config(Some(max), Some(max));
                grpc.client_streaming(Call(svc), request).await
            })
        })
    };
}

mod v5 {
    use super::*;
    include!(concat!(env!("OUT_DIR"), "/tfplugin5_routes.rs"));
}

mod v6 {
    use super::*;
    include!(concat!(env!("OUT_DIR"), "/tfplugin6_routes.rs"));
}

/// A unary method, as tonic calls it.
struct UnaryCall {
    svc: Svc,
    call: fn(Svc, Request<Bytes>) -> Answer<Reply>,
}

impl UnaryService<Bytes> for UnaryCall {
    type Response = Reply;
    type Future = Answer<Reply>;

    fn call(&mut self, request: Request<Bytes>) -> Self::Future {
        (self.call)(self.svc.clone(), request)
    }
}

/// A server-streaming method, as tonic calls it.
struct StreamingCall {
    svc: Svc,
    call: fn(Svc, Request<Bytes>) -> Answer<ReplyStream>,
}

impl ServerStreamingService<Bytes> for StreamingCall {
    type Response = Reply;
    type ResponseStream = ReplyStream;
    type Future = Answer<ReplyStream>;

    fn call(&mut self, request: Request<Bytes>) -> Self::Future {
        (self.call)(self.svc.clone(), request)
    }
}

/// One protocol major's `Provider` service.
#[derive(Clone)]
struct Routes {
    svc: Svc,
    /// The largest message, decoded or encoded.
    max_message: usize,
    /// `/tfplugin6.Provider/`: what comes before a method's name in the request's path.
    prefix: &'static str,
    route: fn(&str) -> Option<Route>,
}

impl Routes {
    fn call(
        &self,
        request: http::Request<Body>,
    ) -> BoxFuture<Result<http::Response<Body>, Infallible>> {
        let route = request
            .uri()
            .path()
            .strip_prefix(self.prefix)
            .and_then(self.route);
        let svc = self.svc.clone();
        let max = self.max_message;
        let grpc = move || Grpc::new(RawCodec).apply_max_message_size_config(Some(max), Some(max));
        match route {
            Some(Route::Unary(call)) => {
                Box::pin(async move { Ok(grpc().unary(UnaryCall { svc, call }, request).await) })
            }
            Some(Route::ServerStreaming(call)) => Box::pin(async move {
                Ok(grpc()
                    .server_streaming(StreamingCall { svc, call }, request)
                    .await)
            }),
            Some(Route::ClientStreaming(call)) => {
                Box::pin(async move { Ok(call(svc, request, max).await) })
            }
            None => Box::pin(async { Ok(unimplemented()) }),
        }
    }
}

/// The answer to a method the service does not have, as tonic's generated servers give it.
fn unimplemented() -> http::Response<Body> {
    let mut response = http::Response::new(Body::default());
    let headers = response.headers_mut();
    headers.insert(
        Status::GRPC_STATUS,
        (tonic::Code::Unimplemented as i32).into(),
    );
    headers.insert(
        http::header::CONTENT_TYPE,
        tonic::metadata::GRPC_CONTENT_TYPE,
    );
    response
}

macro_rules! major {
    ($(#[$doc:meta])* $name:ident, $service:literal, $routes:path) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub(crate) struct $name(Routes);

        impl $name {
            pub(crate) fn new(svc: Svc, max_message: usize) -> Self {
                $name(Routes {
                    svc,
                    max_message,
                    prefix: concat!("/", $service, "/"),
                    route: $routes,
                })
            }
        }

        impl NamedService for $name {
            const NAME: &'static str = $service;
        }

        impl tower::Service<http::Request<Body>> for $name {
            type Response = http::Response<Body>;
            type Error = Infallible;
            type Future = BoxFuture<Result<http::Response<Body>, Infallible>>;

            fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
                Poll::Ready(Ok(()))
            }

            fn call(&mut self, request: http::Request<Body>) -> Self::Future {
                self.0.call(request)
            }
        }
    };
}

major!(
    /// `tfplugin5.Provider`.
    ProviderV5,
    "tfplugin5.Provider",
    v5::route
);
major!(
    /// `tfplugin6.Provider`.
    ProviderV6,
    "tfplugin6.Provider",
    v6::route
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Each `rpc` of a protocol file: its name, and whether the request and the
    /// response stream.
    fn rpcs(proto: &str) -> Vec<(String, bool, bool)> {
        let words: Vec<&str> = proto
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ';')
            .filter(|w| !w.is_empty())
            .collect();
        let mut out = Vec::new();
        for (i, w) in words.iter().enumerate() {
            if *w != "rpc" {
                continue;
            }
            // rpc Name ( [stream] In ) returns ( [stream] Out )
            let name = words[i + 1].to_owned();
            let client = words[i + 2] == "stream";
            let returns = words[i + 2..].iter().position(|w| *w == "returns").unwrap() + i + 2;
            let server = words[returns + 1] == "stream";
            out.push((name, client, server));
        }
        out
    }

    fn check(proto: &str, route: fn(&str) -> Option<Route>) {
        let rpcs = rpcs(proto);
        assert!(rpcs.len() > 20, "{} rpcs", rpcs.len());
        for (name, client, server) in rpcs {
            let kind = match route(&name) {
                Some(Route::Unary(_)) => (false, false),
                Some(Route::ServerStreaming(_)) => (false, true),
                Some(Route::ClientStreaming(_)) => (true, false),
                None => panic!("{name} is not routed"),
            };
            assert_eq!(
                kind,
                (client, server),
                "{name}: (client stream, server stream)"
            );
        }
        assert!(route("NoSuchMethod").is_none());
        assert!(route("").is_none());
    }

    #[test]
    fn every_method_of_both_protocols_is_routed_as_it_streams() {
        check(include_str!("../../proto/tfplugin5.proto"), v5::route);
        check(include_str!("../../proto/tfplugin6.proto"), v6::route);
    }
}
