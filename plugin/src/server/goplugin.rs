//! go-plugin's own services: `plugin.GRPCController` (Shutdown) and `plugin.GRPCStdio`.

use std::pin::Pin;

use futures_util::{Stream, StreamExt};
use tokio::sync::watch;
use tonic::{Request, Response, Status};

use crate::proto::plugin as pb;

/// Shutdown: tells the server to end.
pub(crate) struct Controller {
    pub(crate) shutdown: watch::Sender<bool>,
}

#[tonic::async_trait]
impl pb::grpc_controller_server::GrpcController for Controller {
    async fn shutdown(&self, _request: Request<pb::Empty>) -> Result<Response<pb::Empty>, Status> {
        self.shutdown.send_replace(true);
        Ok(Response::new(pb::Empty {}))
    }
}

/// StreamStdio: the process's output goes to its own stdout and stderr (which go-plugin
/// reads and logs too), so the stream stays open and empty until shutdown.
pub(crate) struct Stdio {
    pub(crate) shutdown: watch::Receiver<bool>,
}

type StdioStream = Pin<Box<dyn Stream<Item = Result<pb::StdioData, Status>> + Send>>;

#[tonic::async_trait]
impl pb::grpc_stdio_server::GrpcStdio for Stdio {
    type StreamStdioStream = StdioStream;

    async fn stream_stdio(&self, _request: Request<()>) -> Result<Response<StdioStream>, Status> {
        let mut rx = self.shutdown.clone();
        let stream = futures_util::stream::once(async move {
            let _ = rx.wait_for(|s| *s).await;
            None
        })
        .filter_map(|x: Option<Result<pb::StdioData, Status>>| async move { x });
        Ok(Response::new(Box::pin(stream)))
    }
}
