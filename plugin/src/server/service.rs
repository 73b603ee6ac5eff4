//! The tfplugin5 and tfplugin6 `Provider` services: each converts its messages, calls the
//! shared [`Core`](super::core::Core) and converts the answer back. The two majors differ
//! only in names (and in `PrepareProviderConfig`, which returns the config), so one macro
//! writes both.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::core::Core;
use crate::provider::Provider;

/// A time as the protocol carries it (times before 1970 are 1970).
fn timestamp(t: std::time::SystemTime) -> prost_types::Timestamp {
    let since = t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    prost_types::Timestamp {
        seconds: i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
        nanos: i32::try_from(since.subsec_nanos()).unwrap_or(0),
    }
}

/// The service for one major version.
pub(crate) struct Service<P> {
    pub(crate) core: Arc<Core<P>>,
}

macro_rules! provider_service {
    (
        $pb:ident, $cv:ident,
        get_schema: $get_schema:ident,
        validate_provider: $validate_provider:ident / $validate_provider_msg:ident,
        validate_resource: $validate_resource:ident / $validate_resource_msg:ident,
        validate_data: $validate_data:ident / $validate_data_msg:ident,
        configure: $configure:ident / $configure_msg:ident,
        stop: $stop:ident / $stop_msg:ident,
        validate_provider_response: $vpr:expr,
        state_store_rpcs: { $($state_store_rpcs:tt)* }
    ) => {
        /// What the provider offers, as the protocol says it.
        fn server_capabilities(schemas: &crate::provider::Schemas) -> pb::ServerCapabilities {
            pb::ServerCapabilities {
                move_resource_state: schemas.capabilities.move_resource_state,
                generate_resource_config: schemas.capabilities.generate_resource_config,
                ..Default::default()
            }
        }

        /// The functions' signatures as the protocol carries them; one that cannot be
        /// served is left out with an error diagnostic naming it.
        fn functions(
            schemas: &crate::provider::Schemas,
            diags: &mut Vec<crate::Diagnostic>,
        ) -> std::collections::HashMap<String, pb::Function> {
            schemas
                .functions
                .iter()
                .filter_map(|(name, f)| match $cv::to_function(name, f) {
                    Ok(f) => Some((name.clone(), f)),
                    Err(e) => {
                        diags.push(
                            crate::Diagnostic::error(format!(
                                "the function `{name}` cannot be served"
                            ))
                            .with_detail(e),
                        );
                        None
                    }
                })
                .collect()
        }

        // `..extra` fills what one major has beyond the other: nothing in protocol 5.
        #[allow(clippy::needless_update)]
        #[tonic::async_trait]
        impl<P: Provider> crate::proto::$pb::provider_server::Provider for Service<P> {
            async fn get_metadata(
                &self,
                _request: Request<pb::get_metadata::Request>,
            ) -> Result<Response<pb::get_metadata::Response>, Status> {
                let s = &self.core.schemas;
                Ok(Response::new(pb::get_metadata::Response {
                    server_capabilities: Some(server_capabilities(&self.core.schemas)),
                    diagnostics: Vec::new(),
                    data_sources: s
                        .data_sources
                        .keys()
                        .map(|k| pb::get_metadata::DataSourceMetadata { type_name: k.clone() })
                        .collect(),
                    resources: s
                        .resources
                        .keys()
                        .map(|k| pb::get_metadata::ResourceMetadata { type_name: k.clone() })
                        .collect(),
                    functions: s
                        .functions
                        .keys()
                        .map(|k| pb::get_metadata::FunctionMetadata { name: k.clone() })
                        .collect(),
                    ephemeral_resources: s
                        .ephemeral_resources
                        .keys()
                        .map(|k| pb::get_metadata::EphemeralMetadata { type_name: k.clone() })
                        .collect(),
                    list_resources: s
                        .list_resources
                        .keys()
                        .map(|k| pb::get_metadata::ListResourceMetadata { type_name: k.clone() })
                        .collect(),
                    actions: s
                        .actions
                        .keys()
                        .map(|k| pb::get_metadata::ActionMetadata { type_name: k.clone() })
                        .collect(),
                    ..extra_metadata(s)
                }))
            }

            async fn $get_schema(
                &self,
                _request: Request<pb::get_provider_schema::Request>,
            ) -> Result<Response<pb::get_provider_schema::Response>, Status> {
                let s = &self.core.schemas;
                let mut diags = Vec::new();
                let mut convert = |what: &str, name: &str, schema: &tfvalue::schema::Schema| {
                    // A schema whose validators or planner facts cannot work (or that
                    // breaks Terraform's rules) is the provider's bug: said at once, as
                    // a warning (a schema served so far keeps working), rather than
                    // as odd plans later.
                    let problems = schema.block.check_schema();
                    if !problems.is_empty() {
                        let detail: Vec<String> = problems.iter().map(ToString::to_string).collect();
                        diags.push(crate::Diagnostic::warning(format!(
                            "the schema of {what}{name} is not valid"
                        )).with_detail(detail.join("\n")));
                    }
                    match $cv::to_schema(schema) {
                        Ok(s) => Some(s),
                        Err(e) => {
                            diags.push(crate::Diagnostic::error(format!(
                                "the schema of {what}{name} cannot be served over this protocol version"
                            )).with_detail(e));
                            None
                        }
                    }
                };
                let provider = convert("the provider", "", &s.provider);
                let provider_meta = s.provider_meta.as_ref().and_then(|m| convert("provider_meta", "", m));
                let resource_schemas = s
                    .resources
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), convert("resource ", k, v)?)))
                    .collect();
                let data_source_schemas = s
                    .data_sources
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), convert("data source ", k, v)?)))
                    .collect();
                let ephemeral_resource_schemas = s
                    .ephemeral_resources
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), convert("ephemeral resource ", k, v)?)))
                    .collect();
                let list_resource_schemas = s
                    .list_resources
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), convert("list resource ", k, v)?)))
                    .collect();
                let action_schemas = s
                    .actions
                    .iter()
                    .filter_map(|(k, v)| {
                        Some((k.clone(), pb::ActionSchema { schema: Some(convert("action ", k, v)?) }))
                    })
                    .collect();
                for name in s.list_resources.keys() {
                    if !s.resources.contains_key(name) || !s.identities.contains_key(name) {
                        diags.push(crate::Diagnostic::warning(format!(
                            "the list resource `{name}` has no resource type with an identity"
                        )).with_detail(format!(
                            "Terraform lists objects of a managed resource type by their identity: \
                             `{name}` needs a resource type of that name with an identity schema, \
                             or `terraform query` fails on it."
                        )));
                    }
                }
                let functions = functions(&self.core.schemas, &mut diags);
                // Protocol 5 has nothing more: every field is set above, and `extra` unused.
                #[allow(unused_variables)]
                let extra = extra_schema(s, &mut diags);
                Ok(Response::new(pb::get_provider_schema::Response {
                    provider,
                    resource_schemas,
                    data_source_schemas,
                    functions,
                    ephemeral_resource_schemas,
                    list_resource_schemas,
                    action_schemas,
                    diagnostics: $cv::to_diagnostics(diags, None),
                    provider_meta,
                    server_capabilities: Some(server_capabilities(&self.core.schemas)),
                    ..extra
                }))
            }

            async fn $validate_provider(
                &self,
                request: Request<pb::$validate_provider_msg::Request>,
            ) -> Result<Response<pb::$validate_provider_msg::Response>, Status> {
                let r = request.into_inner();
                let config = $cv::dynamic_value(r.config);
                let diags = self.core.validate_provider_config(config.clone()).await;
                let diags = $cv::to_diagnostics(diags, Some(self.core.provider_type()));
                let make: fn(Vec<pb::Diagnostic>, tfvalue::DynamicValue) -> pb::$validate_provider_msg::Response = $vpr;
                Ok(Response::new(make(diags, config)))
            }

            async fn $validate_resource(
                &self,
                request: Request<pb::$validate_resource_msg::Request>,
            ) -> Result<Response<pb::$validate_resource_msg::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.resource_type(&r.type_name).cloned();
                let diags = self
                    .core
                    .validate_config(
                        crate::server::core::ConfigKind::Resource,
                        r.type_name,
                        $cv::dynamic_value(r.config),
                        $cv::capabilities(r.client_capabilities),
                    )
                    .await;
                Ok(Response::new(pb::$validate_resource_msg::Response {
                    diagnostics: $cv::to_diagnostics(diags, ty.as_ref()),
                }))
            }

            async fn $validate_data(
                &self,
                request: Request<pb::$validate_data_msg::Request>,
            ) -> Result<Response<pb::$validate_data_msg::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.data_source_type(&r.type_name).cloned();
                let diags = self
                    .core
                    .validate_config(
                        crate::server::core::ConfigKind::DataSource,
                        r.type_name,
                        $cv::dynamic_value(r.config),
                        Default::default(),
                    )
                    .await;
                Ok(Response::new(pb::$validate_data_msg::Response {
                    diagnostics: $cv::to_diagnostics(diags, ty.as_ref()),
                }))
            }

            async fn upgrade_resource_state(
                &self,
                request: Request<pb::upgrade_resource_state::Request>,
            ) -> Result<Response<pb::upgrade_resource_state::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.resource_type(&r.type_name).cloned();
                let resp = self
                    .core
                    .upgrade(r.type_name, r.version, $cv::raw_state(r.raw_state))
                    .await;
                Ok(Response::new(pb::upgrade_resource_state::Response {
                    upgraded_state: $cv::to_dynamic_value(resp.upgraded_state),
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, ty.as_ref()),
                }))
            }

            async fn $configure(
                &self,
                request: Request<pb::$configure_msg::Request>,
            ) -> Result<Response<pb::$configure_msg::Response>, Status> {
                let r = request.into_inner();
                let diags = self
                    .core
                    .configure(r.terraform_version, $cv::dynamic_value(r.config))
                    .await;
                Ok(Response::new(pb::$configure_msg::Response {
                    diagnostics: $cv::to_diagnostics(diags, Some(self.core.provider_type())),
                }))
            }

            async fn read_resource(
                &self,
                request: Request<pb::read_resource::Request>,
            ) -> Result<Response<pb::read_resource::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.resource_type(&r.type_name).cloned();
                let identity = $cv::identity(r.current_identity);
                let [current_state, provider_meta] =
                    $cv::dynamic_values([r.current_state, r.provider_meta]);
                let resp = self
                    .core
                    .read(
                        r.type_name,
                        current_state,
                        r.private,
                        provider_meta,
                        $cv::capabilities(r.client_capabilities),
                        identity,
                    )
                    .await;
                Ok(Response::new(pb::read_resource::Response {
                    new_state: $cv::to_dynamic_value(resp.new_state),
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, ty.as_ref()),
                    private: resp.private,
                    deferred: resp.deferred.map($cv::to_deferred),
                    new_identity: $cv::to_identity(resp.new_identity),
                }))
            }

            async fn plan_resource_change(
                &self,
                request: Request<pb::plan_resource_change::Request>,
            ) -> Result<Response<pb::plan_resource_change::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.resource_type(&r.type_name).cloned();
                let identity = $cv::identity(r.prior_identity);
                let [prior_state, proposed_new_state, config, provider_meta] =
                    $cv::dynamic_values([
                        r.prior_state,
                        r.proposed_new_state,
                        r.config,
                        r.provider_meta,
                    ]);
                let resp = self
                    .core
                    .plan(
                        r.type_name,
                        prior_state,
                        proposed_new_state,
                        config,
                        r.prior_private,
                        provider_meta,
                        $cv::capabilities(r.client_capabilities),
                        identity,
                    )
                    .await;
                Ok(Response::new(pb::plan_resource_change::Response {
                    planned_state: $cv::to_dynamic_value(resp.planned_state),
                    requires_replace: resp
                        .requires_replace
                        .iter()
                        .map(|p| $cv::to_attribute_path(p, ty.as_ref()))
                        .collect(),
                    planned_private: resp.planned_private,
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, ty.as_ref()),
                    deferred: resp.deferred.map($cv::to_deferred),
                    planned_identity: $cv::to_identity(resp.planned_identity),
                    ..Default::default()
                }))
            }

            async fn apply_resource_change(
                &self,
                request: Request<pb::apply_resource_change::Request>,
            ) -> Result<Response<pb::apply_resource_change::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.resource_type(&r.type_name).cloned();
                let identity = $cv::identity(r.planned_identity);
                let [prior_state, planned_state, config, provider_meta] =
                    $cv::dynamic_values([
                        r.prior_state,
                        r.planned_state,
                        r.config,
                        r.provider_meta,
                    ]);
                let resp = self
                    .core
                    .apply(
                        r.type_name,
                        prior_state,
                        planned_state,
                        config,
                        r.planned_private,
                        provider_meta,
                        identity,
                    )
                    .await;
                Ok(Response::new(pb::apply_resource_change::Response {
                    new_state: $cv::to_dynamic_value(resp.new_state),
                    private: resp.private,
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, ty.as_ref()),
                    new_identity: $cv::to_identity(resp.new_identity),
                    ..Default::default()
                }))
            }

            async fn import_resource_state(
                &self,
                request: Request<pb::import_resource_state::Request>,
            ) -> Result<Response<pb::import_resource_state::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.resource_type(&r.type_name).cloned();
                let resp = self
                    .core
                    .import(
                        r.type_name,
                        r.id,
                        $cv::capabilities(r.client_capabilities),
                        $cv::identity(r.identity),
                    )
                    .await;
                Ok(Response::new(pb::import_resource_state::Response {
                    imported_resources: resp
                        .imported_resources
                        .into_iter()
                        .map(|i| pb::import_resource_state::ImportedResource {
                            type_name: i.type_name,
                            state: $cv::to_dynamic_value(i.state),
                            private: i.private,
                            identity: $cv::to_identity(i.identity),
                        })
                        .collect(),
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, ty.as_ref()),
                    deferred: resp.deferred.map($cv::to_deferred),
                }))
            }

            async fn read_data_source(
                &self,
                request: Request<pb::read_data_source::Request>,
            ) -> Result<Response<pb::read_data_source::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.data_source_type(&r.type_name).cloned();
                let resp = self
                    .core
                    .read_data(
                        r.type_name,
                        $cv::dynamic_value(r.config),
                        $cv::dynamic_value(r.provider_meta),
                        $cv::capabilities(r.client_capabilities),
                    )
                    .await;
                Ok(Response::new(pb::read_data_source::Response {
                    state: $cv::to_dynamic_value(resp.state),
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, ty.as_ref()),
                    deferred: resp.deferred.map($cv::to_deferred),
                }))
            }

            async fn get_resource_identity_schemas(
                &self,
                _request: Request<pb::get_resource_identity_schemas::Request>,
            ) -> Result<Response<pb::get_resource_identity_schemas::Response>, Status> {
                let mut diags = Vec::new();
                let identity_schemas = self
                    .core
                    .identity_schemas()
                    .filter_map(|(k, v)| match $cv::to_identity_schema(v) {
                        Ok(s) => Some((k.clone(), s)),
                        Err(e) => {
                            diags.push(
                                crate::Diagnostic::error(format!(
                                    "the identity schema of `{k}` cannot be served"
                                ))
                                .with_detail(e),
                            );
                            None
                        }
                    })
                    .collect();
                Ok(Response::new(pb::get_resource_identity_schemas::Response {
                    identity_schemas,
                    diagnostics: $cv::to_diagnostics(diags, None),
                }))
            }

            async fn upgrade_resource_identity(
                &self,
                request: Request<pb::upgrade_resource_identity::Request>,
            ) -> Result<Response<pb::upgrade_resource_identity::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.identity_type(&r.type_name).cloned();
                let resp = self
                    .core
                    .upgrade_identity(r.type_name, r.version, $cv::raw_state(r.raw_identity))
                    .await;
                Ok(Response::new(pb::upgrade_resource_identity::Response {
                    upgraded_identity: $cv::to_identity(Some(resp.upgraded_identity)),
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, ty.as_ref()),
                }))
            }

            async fn move_resource_state(
                &self,
                request: Request<pb::move_resource_state::Request>,
            ) -> Result<Response<pb::move_resource_state::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.resource_type(&r.target_type_name).cloned();
                let resp = self
                    .core
                    .move_state(
                        r.source_provider_address,
                        r.source_type_name,
                        r.source_schema_version,
                        $cv::raw_state(r.source_state),
                        r.source_private,
                        r.target_type_name,
                        r.source_identity.map(|raw| {
                            ($cv::raw_state(Some(raw)), r.source_identity_schema_version)
                        }),
                    )
                    .await;
                Ok(Response::new(pb::move_resource_state::Response {
                    target_state: $cv::to_dynamic_value(resp.target_state),
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, ty.as_ref()),
                    target_private: resp.target_private,
                    target_identity: $cv::to_identity(resp.target_identity),
                }))
            }

            async fn validate_ephemeral_resource_config(
                &self,
                request: Request<pb::validate_ephemeral_resource_config::Request>,
            ) -> Result<Response<pb::validate_ephemeral_resource_config::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.ephemeral_type(&r.type_name).cloned();
                let diags = self
                    .core
                    .validate_config(
                        crate::server::core::ConfigKind::Ephemeral,
                        r.type_name,
                        $cv::dynamic_value(r.config),
                        Default::default(),
                    )
                    .await;
                Ok(Response::new(pb::validate_ephemeral_resource_config::Response {
                    diagnostics: $cv::to_diagnostics(diags, ty.as_ref()),
                }))
            }

            async fn open_ephemeral_resource(
                &self,
                request: Request<pb::open_ephemeral_resource::Request>,
            ) -> Result<Response<pb::open_ephemeral_resource::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.ephemeral_type(&r.type_name).cloned();
                let resp = self
                    .core
                    .open_ephemeral(
                        r.type_name,
                        $cv::dynamic_value(r.config),
                        $cv::capabilities(r.client_capabilities),
                    )
                    .await;
                Ok(Response::new(pb::open_ephemeral_resource::Response {
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, ty.as_ref()),
                    renew_at: resp.renew_at.map(timestamp),
                    result: $cv::to_dynamic_value(resp.result),
                    private: Some(resp.private).filter(|p| !p.is_empty()),
                    deferred: resp.deferred.map($cv::to_deferred),
                }))
            }

            async fn renew_ephemeral_resource(
                &self,
                request: Request<pb::renew_ephemeral_resource::Request>,
            ) -> Result<Response<pb::renew_ephemeral_resource::Response>, Status> {
                let r = request.into_inner();
                let resp = self
                    .core
                    .renew_ephemeral(r.type_name, r.private.unwrap_or_default())
                    .await;
                Ok(Response::new(pb::renew_ephemeral_resource::Response {
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, None),
                    renew_at: resp.renew_at.map(timestamp),
                    private: Some(resp.private).filter(|p| !p.is_empty()),
                }))
            }

            async fn close_ephemeral_resource(
                &self,
                request: Request<pb::close_ephemeral_resource::Request>,
            ) -> Result<Response<pb::close_ephemeral_resource::Response>, Status> {
                let r = request.into_inner();
                let diags = self
                    .core
                    .close_ephemeral(r.type_name, r.private.unwrap_or_default())
                    .await;
                Ok(Response::new(pb::close_ephemeral_resource::Response {
                    diagnostics: $cv::to_diagnostics(diags, None),
                }))
            }

            async fn get_functions(
                &self,
                _request: Request<pb::get_functions::Request>,
            ) -> Result<Response<pb::get_functions::Response>, Status> {
                let mut diags = Vec::new();
                let functions = functions(&self.core.schemas, &mut diags);
                Ok(Response::new(pb::get_functions::Response {
                    functions,
                    diagnostics: $cv::to_diagnostics(diags, None),
                }))
            }

            async fn call_function(
                &self,
                request: Request<pb::call_function::Request>,
            ) -> Result<Response<pb::call_function::Response>, Status> {
                let r = request.into_inner();
                let arguments = r
                    .arguments
                    .into_iter()
                    .map(|a| $cv::dynamic_value(Some(a)))
                    .collect();
                let resp = self.core.call_function(r.name, arguments).await;
                Ok(Response::new(pb::call_function::Response {
                    result: if resp.error.is_some() {
                        None
                    } else {
                        $cv::to_dynamic_value(resp.result)
                    },
                    error: resp.error.map($cv::to_function_error),
                }))
            }

            async fn generate_resource_config(
                &self,
                request: Request<pb::generate_resource_config::Request>,
            ) -> Result<Response<pb::generate_resource_config::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.resource_type(&r.type_name).cloned();
                let resp = self
                    .core
                    .generate_config(r.type_name, $cv::dynamic_value(r.state))
                    .await;
                Ok(Response::new(pb::generate_resource_config::Response {
                    config: $cv::to_dynamic_value(resp.config),
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, ty.as_ref()),
                }))
            }

            async fn validate_list_resource_config(
                &self,
                request: Request<pb::validate_list_resource_config::Request>,
            ) -> Result<Response<pb::validate_list_resource_config::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.list_type(&r.type_name).cloned();
                let diags = self
                    .core
                    .validate_list_config(
                        r.type_name,
                        $cv::dynamic_value(r.config),
                        $cv::dynamic_value(r.include_resource_object),
                        $cv::dynamic_value(r.limit),
                    )
                    .await;
                Ok(Response::new(pb::validate_list_resource_config::Response {
                    diagnostics: $cv::to_diagnostics(diags, ty.as_ref()),
                }))
            }

            type ListResourceStream = std::pin::Pin<
                Box<dyn tokio_stream::Stream<Item = Result<pb::list_resource::Event, Status>> + Send>,
            >;

            async fn list_resource(
                &self,
                request: Request<pb::list_resource::Request>,
            ) -> Result<Response<Self::ListResourceStream>, Status> {
                use tokio_stream::StreamExt as _;
                let r = request.into_inner();
                let resource = self.core.resource_type(&r.type_name).cloned();
                let list = self.core.list_type(&r.type_name).cloned();
                let rx = self.core.list(
                    r.type_name,
                    $cv::dynamic_value(r.config),
                    r.include_resource_object,
                    r.limit,
                );
                let events = tokio_stream::wrappers::ReceiverStream::new(rx).map(move |event| {
                    Ok(match event {
                        crate::list::ListEvent::Result(r) => pb::list_resource::Event {
                            identity: $cv::to_identity(Some(r.identity)),
                            display_name: r.display_name,
                            resource_object: r.resource_object.and_then($cv::to_dynamic_value),
                            diagnostic: $cv::to_diagnostics(r.diagnostics, resource.as_ref()),
                        },
                        crate::list::ListEvent::Diagnostics(d) => pb::list_resource::Event {
                            diagnostic: $cv::to_diagnostics(d, list.as_ref()),
                            ..Default::default()
                        },
                    })
                });
                Ok(Response::new(Box::pin(events)))
            }

            async fn validate_action_config(
                &self,
                request: Request<pb::validate_action_config::Request>,
            ) -> Result<Response<pb::validate_action_config::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.action_type(&r.type_name).cloned();
                let diags = self
                    .core
                    .validate_config(
                        crate::server::core::ConfigKind::Action,
                        r.type_name,
                        $cv::dynamic_value(r.config),
                        Default::default(),
                    )
                    .await;
                Ok(Response::new(pb::validate_action_config::Response {
                    diagnostics: $cv::to_diagnostics(diags, ty.as_ref()),
                }))
            }

            async fn plan_action(
                &self,
                request: Request<pb::plan_action::Request>,
            ) -> Result<Response<pb::plan_action::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.action_type(&r.action_type).cloned();
                let resp = self
                    .core
                    .plan_action(
                        r.action_type,
                        $cv::dynamic_value(r.config),
                        $cv::capabilities(r.client_capabilities),
                    )
                    .await;
                Ok(Response::new(pb::plan_action::Response {
                    diagnostics: $cv::to_diagnostics(resp.diagnostics, ty.as_ref()),
                    deferred: resp.deferred.map($cv::to_deferred),
                }))
            }

            type InvokeActionStream = std::pin::Pin<
                Box<dyn tokio_stream::Stream<Item = Result<pb::invoke_action::Event, Status>> + Send>,
            >;

            async fn invoke_action(
                &self,
                request: Request<pb::invoke_action::Request>,
            ) -> Result<Response<Self::InvokeActionStream>, Status> {
                use pb::invoke_action::event;
                use tokio_stream::StreamExt as _;
                let r = request.into_inner();
                let ty = self.core.action_type(&r.action_type).cloned();
                let rx = self.core.invoke_action(
                    r.action_type,
                    $cv::dynamic_value(r.config),
                    $cv::capabilities(r.client_capabilities),
                );
                // The stream ends with `Completed`, whatever comes after it (progress from a
                // task the handler left running): Terraform stops reading at a failed
                // `Completed`, and an event after it crashes its client.
                let until_completed = futures_util::stream::unfold(Some(rx), |rx| async move {
                    let mut rx = rx?;
                    let e = rx.recv().await?;
                    let last = matches!(e, crate::action::ActionEvent::Completed(_));
                    Some((e, (!last).then_some(rx)))
                });
                let events = until_completed.map(move |e| {
                    Ok(pb::invoke_action::Event {
                        r#type: Some(match e {
                            crate::action::ActionEvent::Progress(message) => {
                                event::Type::Progress(event::Progress { message })
                            }
                            crate::action::ActionEvent::Completed(d) => {
                                event::Type::Completed(event::Completed {
                                    diagnostics: $cv::to_diagnostics(d, ty.as_ref()),
                                })
                            }
                        }),
                    })
                });
                Ok(Response::new(Box::pin(events)))
            }

            $($state_store_rpcs)*

            async fn $stop(
                &self,
                _request: Request<pb::$stop_msg::Request>,
            ) -> Result<Response<pb::$stop_msg::Response>, Status> {
                let error = self.core.stop().await;
                Ok(Response::new(pb::$stop_msg::Response { error }))
            }
        }
    };
}

mod v6 {
    use super::*;
    use crate::convert::v6 as cv;
    use crate::proto::tfplugin6 as pb;

    /// What protocol 6 has in `GetMetadata` beyond protocol 5: the state stores.
    fn extra_metadata(s: &crate::provider::Schemas) -> pb::get_metadata::Response {
        pb::get_metadata::Response {
            state_stores: s
                .state_stores
                .keys()
                .map(|k| pb::get_metadata::StateStoreMetadata {
                    type_name: k.clone(),
                })
                .collect(),
            ..Default::default()
        }
    }

    /// What protocol 6 has in `GetProviderSchema` beyond protocol 5: the state stores'
    /// schemas (one that cannot be served is left out with an error naming it).
    fn extra_schema(
        s: &crate::provider::Schemas,
        diags: &mut Vec<crate::Diagnostic>,
    ) -> pb::get_provider_schema::Response {
        let mut state_store_schemas = std::collections::HashMap::new();
        for (name, schema) in &s.state_stores {
            if schema.block.attributes.contains_key("provider")
                || schema.block.block_types.contains_key("provider")
            {
                diags.push(
                    crate::Diagnostic::warning(format!(
                        "the schema of state store {name} is not valid"
                    ))
                    .with_detail(
                        "A state store's block holds its provider's block as `provider`: no \
                     attribute or block of its own may have that name (Terraform refuses it).",
                    ),
                );
            }
            match cv::to_schema(schema) {
                Ok(pb) => {
                    state_store_schemas.insert(name.clone(), pb);
                }
                Err(e) => diags.push(
                    crate::Diagnostic::error(format!(
                        "the schema of state store {name} cannot be served over this protocol version"
                    ))
                    .with_detail(e),
                ),
            }
        }
        pb::get_provider_schema::Response {
            state_store_schemas,
            ..Default::default()
        }
    }

    provider_service!(
        tfplugin6, cv,
        get_schema: get_provider_schema,
        validate_provider: validate_provider_config / validate_provider_config,
        validate_resource: validate_resource_config / validate_resource_config,
        validate_data: validate_data_resource_config / validate_data_resource_config,
        configure: configure_provider / configure_provider,
        stop: stop_provider / stop_provider,
        validate_provider_response: |diagnostics, _config| pb::validate_provider_config::Response { diagnostics },
        state_store_rpcs: {
            async fn validate_state_store_config(
                &self,
                request: Request<pb::validate_state_store::Request>,
            ) -> Result<Response<pb::validate_state_store::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.state_store_type(&r.type_name).cloned();
                let diags = self
                    .core
                    .validate_config(
                        crate::server::core::ConfigKind::StateStore,
                        r.type_name,
                        cv::dynamic_value(r.config),
                        Default::default(),
                    )
                    .await;
                Ok(Response::new(pb::validate_state_store::Response {
                    diagnostics: cv::to_diagnostics(diags, ty.as_ref()),
                }))
            }

            async fn configure_state_store(
                &self,
                request: Request<pb::configure_state_store::Request>,
            ) -> Result<Response<pb::configure_state_store::Response>, Status> {
                let r = request.into_inner();
                let ty = self.core.state_store_type(&r.type_name).cloned();
                let suggested = r.capabilities.map_or(0, |c| c.chunk_size);
                let (diags, chunk_size) = self
                    .core
                    .configure_state_store(r.type_name, cv::dynamic_value(r.config), suggested)
                    .await;
                Ok(Response::new(pb::configure_state_store::Response {
                    diagnostics: cv::to_diagnostics(diags, ty.as_ref()),
                    capabilities: (chunk_size > 0)
                        .then_some(pb::StateStoreServerCapabilities { chunk_size }),
                }))
            }

            type ReadStateBytesStream = std::pin::Pin<
                Box<dyn tokio_stream::Stream<Item = Result<pb::read_state_bytes::Response, Status>> + Send>,
            >;

            async fn read_state_bytes(
                &self,
                request: Request<pb::read_state_bytes::Request>,
            ) -> Result<Response<Self::ReadStateBytesStream>, Status> {
                let r = request.into_inner();
                let size = self.core.state_chunk(&r.type_name);
                let resp = self.core.read_state(r.type_name, r.state_id).await;
                let bytes = resp.bytes;
                let total = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
                let diagnostics = cv::to_diagnostics(resp.diagnostics, None);
                let failed = diagnostics
                    .iter()
                    .any(|d| d.severity == pb::diagnostic::Severity::Error as i32);
                // After an error, or without a state: the diagnostics alone, in one message
                // with a range (Terraform reads one in every message), and no bytes.
                if failed || bytes.is_empty() {
                    let events = (!diagnostics.is_empty()).then(|| {
                        Ok(pb::read_state_bytes::Response {
                            bytes: Vec::new(),
                            total_length: 0,
                            range: Some(pb::StateRange { start: 0, end: -1 }),
                            diagnostics,
                        })
                    });
                    return Ok(Response::new(Box::pin(tokio_stream::iter(events))));
                }
                // Each chunk is copied out as it is sent: the state is held once, and a
                // chunk at a time beside it. Warnings go with the first chunk.
                let mut first = Some(diagnostics);
                let chunks = bytes.len().div_ceil(size);
                let events = (0..chunks).map(move |i| {
                    let start = i * size;
                    let end = (start + size).min(bytes.len());
                    Ok(pb::read_state_bytes::Response {
                        bytes: bytes[start..end].to_vec(),
                        total_length: total,
                        range: Some(pb::StateRange {
                            start: i64::try_from(start).unwrap_or(i64::MAX),
                            end: i64::try_from(end).unwrap_or(i64::MAX) - 1,
                        }),
                        diagnostics: first.take().unwrap_or_default(),
                    })
                });
                Ok(Response::new(Box::pin(tokio_stream::iter(events))))
            }

            async fn write_state_bytes(
                &self,
                request: Request<tonic::Streaming<pb::write_state_bytes::RequestChunk>>,
            ) -> Result<Response<pb::write_state_bytes::Response>, Status> {
                let mut chunks = request.into_inner();
                let mut assembly = crate::state_store::Assembly::default();
                let failed = loop {
                    match chunks.message().await {
                        Ok(Some(c)) => {
                            let chunk = crate::state_store::Chunk {
                                meta: c.meta.map(|m| (m.type_name, m.state_id)),
                                bytes: c.bytes,
                                total_length: c.total_length,
                                range: c.range.map(|r| (r.start, r.end)),
                            };
                            if let Err(d) = assembly.push(chunk) {
                                break Some(d);
                            }
                            // An unknown type is answered at its first chunk, not after the
                            // upload.
                            if let Some((type_name, _)) = &assembly.meta {
                                if self.core.state_store_type(type_name).is_none() {
                                    break Some(crate::server::core::unknown_type("state store", type_name));
                                }
                            }
                        }
                        Ok(None) => break None,
                        Err(status) => return Err(status),
                    }
                };
                let diags = match failed.map_or_else(|| assembly.finish(), Err) {
                    Ok((type_name, state_id, bytes)) => {
                        self.core.write_state(type_name, state_id, bytes).await
                    }
                    Err(d) => vec![d],
                };
                Ok(Response::new(pb::write_state_bytes::Response {
                    diagnostics: cv::to_diagnostics(diags, None),
                }))
            }

            async fn lock_state(
                &self,
                request: Request<pb::lock_state::Request>,
            ) -> Result<Response<pb::lock_state::Response>, Status> {
                let r = request.into_inner();
                let resp = self.core.lock_state(r.type_name, r.state_id, r.operation).await;
                Ok(Response::new(pb::lock_state::Response {
                    lock_id: resp.lock_id,
                    diagnostics: cv::to_diagnostics(resp.diagnostics, None),
                }))
            }

            async fn unlock_state(
                &self,
                request: Request<pb::unlock_state::Request>,
            ) -> Result<Response<pb::unlock_state::Response>, Status> {
                let r = request.into_inner();
                let diags = self.core.unlock_state(r.type_name, r.state_id, r.lock_id).await;
                Ok(Response::new(pb::unlock_state::Response {
                    diagnostics: cv::to_diagnostics(diags, None),
                }))
            }

            async fn get_states(
                &self,
                request: Request<pb::get_states::Request>,
            ) -> Result<Response<pb::get_states::Response>, Status> {
                let r = request.into_inner();
                let resp = self.core.get_states(r.type_name).await;
                Ok(Response::new(pb::get_states::Response {
                    state_id: resp.state_ids,
                    diagnostics: cv::to_diagnostics(resp.diagnostics, None),
                }))
            }

            async fn delete_state(
                &self,
                request: Request<pb::delete_state::Request>,
            ) -> Result<Response<pb::delete_state::Response>, Status> {
                let r = request.into_inner();
                let diags = self.core.delete_state(r.type_name, r.state_id).await;
                Ok(Response::new(pb::delete_state::Response {
                    diagnostics: cv::to_diagnostics(diags, None),
                }))
            }
        }
    );
}

mod v5 {
    use super::*;
    use crate::convert::v5 as cv;
    use crate::proto::tfplugin5 as pb;

    /// Protocol 5 has nothing in `GetMetadata` beyond what both majors have.
    fn extra_metadata(_: &crate::provider::Schemas) -> pb::get_metadata::Response {
        pb::get_metadata::Response::default()
    }

    /// Protocol 5 has nothing in `GetProviderSchema` beyond what both majors have (no
    /// state stores).
    fn extra_schema(
        _: &crate::provider::Schemas,
        _: &mut Vec<crate::Diagnostic>,
    ) -> pb::get_provider_schema::Response {
        pb::get_provider_schema::Response::default()
    }

    provider_service!(
        tfplugin5, cv,
        get_schema: get_schema,
        validate_provider: prepare_provider_config / prepare_provider_config,
        validate_resource: validate_resource_type_config / validate_resource_type_config,
        validate_data: validate_data_source_config / validate_data_source_config,
        configure: configure / configure,
        stop: stop / stop,
        validate_provider_response: |diagnostics, config| pb::prepare_provider_config::Response {
            prepared_config: cv::to_dynamic_value(config),
            diagnostics,
        },
        state_store_rpcs: {}
    );
}
