//! Unit tests of the framework: routing and handler errors, without Terraform.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tfvalue::codec::{Codec, RawState};
use tfvalue::{AttributePath, DynamicValue, Refinements, TfModel, TfValue, Type, Unknown, Value};

use super::*;
use crate::diagnostic::Severity;

#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[tfvalue(version = 1)]
struct Item {
    #[tfvalue(requires_replace)]
    name: Unknown<String>,
    #[tfvalue(optional)]
    size: Unknown<Option<u64>>,
    #[tfvalue(computed, use_state_for_unknown, refine(not_null, prefix = "i-"))]
    id: Unknown<Option<String>>,
    /// Changed by the API on every update.
    #[tfvalue(computed)]
    etag: Unknown<Option<String>>,
}

#[derive(TfValue, Serialize, Deserialize)]
struct ItemV0 {
    name: String,
    #[tfvalue(optional)]
    count: Option<u64>,
}

/// The client: what each handler did, in order.
#[derive(Default)]
struct Log(Mutex<Vec<String>>);

impl Log {
    fn push(&self, s: impl Into<String>) {
        self.0.lock().unwrap().push(s.into());
    }
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

#[derive(TfValue, Serialize, Deserialize)]
struct Cfg {
    #[tfvalue(optional)]
    label: Unknown<Option<String>>,
}

impl ProviderConfig for Cfg {
    type Client = Log;

    fn validate(&self) -> Result<()> {
        match self.label.value() {
            Some(l) if l.is_empty() => Err(Diagnostic::error("label must not be empty")
                .at(AttributePath::new().attr("label"))
                .into()),
            _ => Ok(()),
        }
    }

    async fn configure(self, cx: &Ctx) -> Result<Log> {
        let log = Log::default();
        log.push(format!(
            "configure {} {}",
            cx.terraform_version(),
            self.label.value().map_or("-", String::as_str)
        ));
        if self.label.value().is_some_and(|l| l == "warn") {
            cx.warn(Diagnostic::error("just a warning"));
        }
        if self.label.value().is_some_and(|l| l == "broken") {
            std::fs::read("/no/such/dir/credentials")?;
        }
        Ok(log)
    }
}

struct Items;

impl Resource<Log> for Items {
    type Model = Item;
    const IMPORT_ID: &'static str = "name";

    fn upgrade(&self) -> Codec<Item> {
        Codec::new().upgrade_from(|old: ItemV0| Item {
            name: old.name.into(),
            size: old.count.into(),
            id: Unknown::Known(None),
            etag: Unknown::Known(None),
        })
    }

    fn validate(&self, config: &Item) -> Result<()> {
        if config.size.value() == Some(&0) {
            return Err(Diagnostic::error("size must not be 0")
                .at(AttributePath::new().attr("size"))
                .into());
        }
        Ok(())
    }

    async fn modify_plan(
        &self,
        cx: &Ctx<Log>,
        prior: Option<&Item>,
        planned: &mut Item,
    ) -> Result<()> {
        // The prior state's model as the hook sees it: its size and id.
        let prior = prior.map(|p| (p.size.value().copied(), p.id.value().cloned()));
        cx.client().push(format!("modify_plan prior={prior:?}"));
        if planned.size.value() == Some(&99) {
            cx.requires_replace(AttributePath::new().attr("size"));
        }
        Ok(())
    }

    async fn create(&self, cx: &Ctx<Log>, mut planned: Item) -> Result<Item> {
        cx.client().push(format!(
            "create private={:?}",
            String::from_utf8_lossy(&cx.private())
        ));
        if planned.size.value() == Some(&13) {
            // `?` on an I/O error.
            std::fs::read("/no/such/dir/item")?;
        }
        planned.id = format!("i-{}", planned.name.known().unwrap()).into();
        planned.etag = "e".to_owned().into();
        cx.warn(Diagnostic::warning("created slowly"));
        cx.set_private(b"after-create".to_vec());
        Ok(planned)
    }

    async fn read(&self, cx: &Ctx<Log>, state: Item) -> Result<Option<Item>> {
        cx.client().push("read");
        let name = state.name.known().cloned().unwrap_or_default();
        if name == "gone" {
            return Ok(None);
        }
        Ok(Some(Item {
            id: format!("i-{name}").into(),
            size: Some(7).into(),
            etag: "e".to_owned().into(),
            ..state
        }))
    }

    async fn update(&self, cx: &Ctx<Log>, prior: Item, mut planned: Item) -> Result<Item> {
        cx.client().push(format!(
            "update {:?} -> {:?}",
            prior.size.value(),
            planned.size.value()
        ));
        if planned.size.value() == Some(&13) {
            return Err(Diagnostic::error("unlucky")
                .at(AttributePath::new().attr("size"))
                .into());
        }
        if planned.etag.is_unknown() {
            planned.etag = "e-next".to_owned().into();
        }
        if planned.size.value() == Some(&77) {
            // A provider's bug: another size than the one planned.
            planned.size = Some(78).into();
        }
        Ok(planned)
    }

    async fn delete(&self, cx: &Ctx<Log>, state: Item) -> Result<()> {
        cx.client()
            .push(format!("delete {}", state.name.known().unwrap()));
        Ok(())
    }

    fn moves(&self) -> Vec<StateMove<Item>> {
        let convert = |old: ItemV0| {
            if old.name.is_empty() {
                return Err(Diagnostic::error("an old item without a name").into());
            }
            Ok(Item {
                id: format!("i-{}", old.name).into(),
                etag: Unknown::Known(None),
                size: old.count.into(),
                name: old.name.into(),
            })
        };
        vec![
            StateMove::new("old_item", Codec::new(), convert),
            StateMove::new("t_thing", Codec::new(), convert).from_provider("example.com/x/t"),
        ]
    }
}

#[derive(TfValue, Serialize, Deserialize)]
struct Info {
    name: Unknown<String>,
    #[tfvalue(computed)]
    greeting: Unknown<Option<String>>,
}

struct Greet;

impl DataSource<Log> for Greet {
    type Model = Info;

    async fn read(&self, cx: &Ctx<Log>, mut info: Info) -> Result<Info> {
        cx.client().push("read data");
        let name = info.name.known().cloned().unwrap_or_default();
        if name.is_empty() {
            return Err(Diagnostic::error("who?")
                .at(AttributePath::new().attr("name"))
                .into());
        }
        info.greeting = format!("hello, {name}").into();
        Ok(info)
    }
}

#[derive(TfValue, Serialize, Deserialize)]
struct Token {
    subject: Unknown<String>,
    #[tfvalue(computed, sensitive)]
    token: Unknown<Option<String>>,
}

struct Tokens;

impl EphemeralResource<Log> for Tokens {
    type Model = Token;

    fn validate(&self, config: &Token) -> Result<()> {
        if config.subject.known().is_some_and(|s| s.is_empty()) {
            return Err(Diagnostic::error("no subject").into());
        }
        Ok(())
    }

    async fn open(&self, cx: &Ctx<Log>, mut t: Token) -> Result<Token> {
        let subject = t.subject.known().cloned().unwrap_or_default();
        cx.client().push(format!("open {subject}"));
        match subject.as_str() {
            "later" => cx.defer(DeferredReason::AbsentPrereq)?,
            "nobody" => return Err(Diagnostic::error("who?").into()),
            _ => {}
        }
        t.token = Some(format!("tok-{subject}")).into();
        cx.set_private(subject.into_bytes());
        cx.set_renew_at(std::time::UNIX_EPOCH + std::time::Duration::from_secs(60));
        Ok(t)
    }

    async fn renew(&self, cx: &Ctx<Log>) -> Result<()> {
        let subject = String::from_utf8(cx.private()).unwrap();
        cx.client().push(format!("renew {subject}"));
        if subject == "once" {
            cx.set_private(b"renewed".to_vec());
        } else {
            cx.set_renew_at(std::time::UNIX_EPOCH + std::time::Duration::from_secs(120));
        }
        Ok(())
    }

    async fn close(&self, cx: &Ctx<Log>) -> Result<()> {
        let subject = String::from_utf8(cx.private()).unwrap();
        cx.client().push(format!("close {subject}"));
        Ok(())
    }
}

fn framework() -> Framework<Log> {
    Framework::new_with::<Cfg>()
        .resource("t_item", Items)
        .data_source("t_info", Greet)
        .ephemeral_resource("t_token", Tokens)
}

fn ctx() -> Context {
    Context::detached()
}

fn dv(item: &Item) -> DynamicValue {
    DynamicValue::encode(item).unwrap()
}

fn null() -> DynamicValue {
    DynamicValue::from_msgpack(vec![0xc0])
}

/// An item; its `etag` is known, null or unknown as its `id` is.
fn item(name: &str, size: Option<u64>, id: Unknown<Option<String>>) -> Item {
    Item {
        name: name.to_owned().into(),
        size: size.into(),
        etag: id.clone().map(|id| id.map(|_| "e".to_owned())),
        id,
    }
}

fn decode(dv: &DynamicValue) -> Option<Item> {
    dv.decode::<Option<Item>>().unwrap()
}

async fn configured() -> Framework<Log> {
    configure(framework()).await
}

/// `f` configured with the provider configuration every test uses.
async fn configure(f: Framework<Log>) -> Framework<Log> {
    let config = DynamicValue::encode(&Cfg {
        label: Some("x".to_owned()).into(),
    })
    .unwrap();
    let diags = f
        .configure_provider(ConfigureProviderRequest {
            terraform_version: "1.0.3".into(),
            config,
            ctx: ctx(),
        })
        .await;
    assert!(diags.is_empty(), "{diags:?}");
    f
}

fn plan_req(
    prior: DynamicValue,
    proposed: DynamicValue,
    config: DynamicValue,
) -> PlanResourceChangeRequest {
    PlanResourceChangeRequest {
        prior_identity: None,
        type_name: "t_item".into(),
        prior_state: prior,
        proposed_new_state: proposed,
        config,
        prior_private: b"prior".to_vec(),
        provider_meta: DynamicValue::default(),
        ctx: ctx(),
    }
}

fn apply_req(prior: DynamicValue, planned: DynamicValue) -> ApplyResourceChangeRequest {
    ApplyResourceChangeRequest {
        planned_identity: None,
        type_name: "t_item".into(),
        config: planned.clone(),
        prior_state: prior,
        planned_state: planned,
        planned_private: b"planned".to_vec(),
        provider_meta: DynamicValue::default(),
        ctx: ctx(),
    }
}

#[test]
fn schemas_come_from_the_models() {
    let s = framework().schemas();
    assert_eq!(s.provider, Cfg::schema());
    assert_eq!(s.resources["t_item"], Item::schema());
    assert_eq!(s.data_sources["t_info"], Info::schema());
}

#[tokio::test]
async fn configure_builds_the_client_every_handler_gets() {
    let f = configured().await;
    let client = f.client.get().unwrap();
    assert_eq!(client.take(), ["configure 1.0.3 x"]);
    let resp = f
        .read_resource(ReadResourceRequest {
            current_identity: None,
            type_name: "t_item".into(),
            current_state: dv(&item("a", None, Some("i-a".to_owned()).into())),
            private: b"kept".to_vec(),
            provider_meta: DynamicValue::default(),
            ctx: ctx(),
        })
        .await;
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    // The same client, not a copy.
    assert_eq!(client.take(), ["read"]);
    assert_eq!(
        decode(&resp.new_state).unwrap().size,
        Unknown::from(Some(7))
    );
    assert_eq!(resp.private, b"kept");
}

#[tokio::test]
async fn handlers_before_configure_are_an_error() {
    let f = framework();
    let resp = f
        .plan_resource_change(plan_req(
            null(),
            dv(&item("a", None, Unknown::null())),
            dv(&item("a", None, Unknown::null())),
        ))
        .await;
    assert_eq!(resp.diagnostics.len(), 1);
    assert_eq!(
        resp.diagnostics[0].summary,
        "the provider is not configured"
    );
    // A provider without configuration needs no ConfigureProvider.
    let f = Framework::new();
    assert!(f.client.get().is_ok());
}

#[tokio::test]
async fn configure_errors_and_warnings() {
    let f = framework();
    let run = |label: &str| {
        let config = DynamicValue::encode(&Cfg {
            label: Some(label.to_owned()).into(),
        })
        .unwrap();
        f.configure_provider(ConfigureProviderRequest {
            terraform_version: "1.0.3".into(),
            config,
            ctx: ctx(),
        })
    };
    let diags = run("warn").await;
    assert_eq!(diags.len(), 1);
    assert_eq!(
        diags[0].severity,
        Severity::Warning,
        "warn() makes a warning of any diagnostic"
    );
    assert!(f.client.get().is_ok());
    let f = framework();
    let config = DynamicValue::encode(&Cfg {
        label: Some("broken".to_owned()).into(),
    })
    .unwrap();
    let diags = f
        .configure_provider(ConfigureProviderRequest {
            terraform_version: "1.0.3".into(),
            config,
            ctx: ctx(),
        })
        .await;
    assert_eq!(diags.len(), 1);
    assert!(diags[0].is_error());
    assert!(diags[0].summary.contains("No such file"), "{}", diags[0]);
    assert!(
        f.client.get().is_err(),
        "a failed configure leaves no client"
    );

    // The typed validation runs again before configure (values unknown when Terraform
    // validated are known now).
    let f = framework();
    let config = DynamicValue::encode(&Cfg {
        label: Some(String::new()).into(),
    })
    .unwrap();
    let diags = f
        .configure_provider(ConfigureProviderRequest {
            terraform_version: "1.0.3".into(),
            config,
            ctx: ctx(),
        })
        .await;
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].to_string(), "label must not be empty at label");
    assert!(f.client.get().is_err());
}

#[tokio::test]
async fn validate_runs_the_typed_hooks() {
    let f = framework();
    let config = DynamicValue::encode(&Cfg {
        label: Some(String::new()).into(),
    })
    .unwrap();
    let diags = f
        .validate_provider_config(ValidateProviderConfigRequest { config, ctx: ctx() })
        .await;
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].to_string(), "label must not be empty at label");

    let validate = |config: DynamicValue| {
        f.validate_resource_config(ValidateConfigRequest {
            type_name: "t_item".into(),
            config,
            ctx: ctx(),
        })
    };
    assert!(validate(dv(&item("a", Some(1), Unknown::null())))
        .await
        .is_empty());
    let diags = validate(dv(&item("a", Some(0), Unknown::null()))).await;
    assert_eq!(diags[0].to_string(), "size must not be 0 at size");
    // Unknowns in configuration reach the hook, as the model holds them.
    let unknown = Item {
        name: Unknown::unknown(),
        size: Unknown::unknown(),
        id: Unknown::null(),
        etag: Unknown::null(),
    };
    assert!(validate(dv(&unknown)).await.is_empty());
}

/// The JSON form of `DynamicValue` (Terraform sends MessagePack, another client may send
/// JSON) reaches models through a `Value` of the model's type: the same models, the same
/// errors at the same paths.
#[tokio::test]
async fn json_values_reach_the_models_too() {
    let f = framework();
    let validate = |json: &str| {
        f.validate_resource_config(ValidateConfigRequest {
            type_name: "t_item".into(),
            config: DynamicValue::from_json(json.as_bytes().to_vec()),
            ctx: ctx(),
        })
    };
    // A number as a decimal string, as go-cty's JSON allows; the hook sees the model.
    assert!(validate(r#"{"name":"a","size":"3","id":null,"etag":null}"#)
        .await
        .is_empty());
    let diags = validate(r#"{"name":"a","size":0,"id":null,"etag":null}"#).await;
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].to_string(), "size must not be 0 at size");
    let diags = validate(r#"{"name":"a","size":"x","id":null,"etag":null}"#).await;
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        diags[0].summary,
        "the configuration of `t_item` does not fit its model"
    );
    assert_eq!(diags[0].path().to_string(), "size");
    // JSON null is a null configuration, which validation lets through, as MessagePack's.
    assert!(validate("null").await.is_empty());
    // The provider's own block takes JSON too.
    let diags = f
        .validate_provider_config(ValidateProviderConfigRequest {
            config: DynamicValue::from_json(br#"{"label":""}"#.to_vec()),
            ctx: ctx(),
        })
        .await;
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].to_string(), "label must not be empty at label");
}

/// A plain `String` field is the trap the framework explains: configuration that refers to
/// another resource is unknown at validate and plan time.
#[tokio::test]
async fn a_model_that_cannot_hold_an_unknown_is_explained() {
    #[derive(TfValue, Serialize, Deserialize)]
    struct Plain {
        name: String,
    }
    struct P;
    impl Resource for P {
        type Model = Plain;
        async fn create(&self, _: &Ctx, p: Plain) -> Result<Plain> {
            Ok(p)
        }
        async fn read(&self, _: &Ctx, p: Plain) -> Result<Option<Plain>> {
            Ok(Some(p))
        }
        async fn update(&self, _: &Ctx, _: Plain, p: Plain) -> Result<Plain> {
            Ok(p)
        }
        async fn delete(&self, _: &Ctx, _: Plain) -> Result<()> {
            Ok(())
        }
    }
    let f = Framework::new().resource("t_plain", P);
    let config = DynamicValue::encode_value(
        &Value::Object([("name".to_owned(), Value::Unknown(Refinements::new()))].into()),
        &Plain::tf_type(),
    )
    .unwrap();
    let diags = f
        .validate_resource_config(ValidateConfigRequest {
            type_name: "t_plain".into(),
            config,
            ctx: ctx(),
        })
        .await;
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        diags[0].summary,
        "the configuration of `t_plain` does not fit its model"
    );
    assert_eq!(diags[0].path().to_string(), "name");
    assert!(
        diags[0].detail.contains("declare the field `Unknown<..>`"),
        "{}",
        diags[0]
    );
}

#[tokio::test]
async fn plan_create_update_no_change_and_destroy() {
    let f = configured().await;
    let client = f.client.get().unwrap();
    client.take();
    let config = dv(&item("a", Some(1), Unknown::null()));

    // Create: the computed id is unknown, refined as the planner says; the hook runs.
    let resp = f
        .plan_resource_change(plan_req(null(), config.clone(), config.clone()))
        .await;
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let planned = decode(&resp.planned_state).unwrap();
    assert_eq!(planned.id, Unknown::unknown().not_null().with_prefix("i-"));
    assert!(resp.requires_replace.is_empty());
    assert_eq!(
        resp.planned_private, b"prior",
        "private data passes through"
    );
    assert_eq!(client.take(), ["modify_plan prior=None"]);

    // No change: the plan is the prior state.
    let prior = dv(&item("a", Some(1), Some("i-a".to_owned()).into()));
    let resp = f
        .plan_resource_change(plan_req(prior.clone(), prior.clone(), config.clone()))
        .await;
    assert_eq!(resp.planned_state.msgpack, prior.msgpack);
    assert_eq!(
        client.take(),
        [r#"modify_plan prior=Some((Some(1), Some("i-a")))"#]
    );

    // An update: `id` is kept (use_state_for_unknown), `etag` (changed by the API on every
    // update) is unknown.
    let proposed = dv(&item("a", Some(2), Some("i-a".to_owned()).into()));
    let resp = f
        .plan_resource_change(plan_req(
            prior.clone(),
            proposed,
            dv(&item("a", Some(2), Unknown::null())),
        ))
        .await;
    let planned = decode(&resp.planned_state).unwrap();
    assert_eq!(planned.id, Unknown::from(Some("i-a".to_owned())));
    assert_eq!(planned.etag, Unknown::unknown());
    assert!(resp.requires_replace.is_empty());
    // The prior state's model is the prior state's (size 1), not the plan's (size 2).
    assert_eq!(
        client.take(),
        [r#"modify_plan prior=Some((Some(1), Some("i-a")))"#]
    );

    // A change of a requires_replace attribute.
    let proposed = dv(&item("b", Some(1), Some("i-a".to_owned()).into()));
    let resp = f
        .plan_resource_change(plan_req(
            prior.clone(),
            proposed,
            dv(&item("b", Some(1), Unknown::null())),
        ))
        .await;
    assert_eq!(resp.requires_replace, [AttributePath::new().attr("name")]);

    // One the hook marks.
    let proposed = dv(&item("a", Some(99), Some("i-a".to_owned()).into()));
    let resp = f
        .plan_resource_change(plan_req(
            prior.clone(),
            proposed,
            dv(&item("a", Some(99), Unknown::null())),
        ))
        .await;
    assert_eq!(resp.requires_replace, [AttributePath::new().attr("size")]);

    assert_eq!(client.take().len(), 2);

    // Destroy: null, without the hook.
    let resp = f
        .plan_resource_change(plan_req(prior, null(), null()))
        .await;
    assert_eq!(resp.planned_state.msgpack, [0xc0]);
    assert!(resp.diagnostics.is_empty());
    assert_eq!(client.take(), Vec::<String>::new());
}

/// The plan copies the proposal's value where the configuration or the prior state has
/// the same bytes (a create, a plan with no change) instead of decoding them again: it
/// plans exactly as when each is decoded (here from JSON, which is never copied).
#[tokio::test]
async fn a_proposal_equal_to_the_configuration_or_prior_plans_as_when_decoded() {
    let f = configured().await;
    let json = |i: &Item| DynamicValue {
        msgpack: Vec::new(),
        json: tfvalue::json::to_vec(i).unwrap(),
    };
    let config = item("a", Some(1), Unknown::null());
    let prior = item("a", Some(1), Some("i-a".to_owned()).into());
    let changed = item("b", Some(1), Some("i-a".to_owned()).into());
    let changed_config = item("b", Some(1), Unknown::null());
    for (prior, proposed, config) in [
        (None, &config, &config),
        (Some(&prior), &prior, &config),
        (Some(&prior), &changed, &changed_config),
    ] {
        let prior_dv = |as_json: bool| match prior {
            None => null(),
            Some(p) if as_json => json(p),
            Some(p) => dv(p),
        };
        let copied = f
            .plan_resource_change(plan_req(prior_dv(false), dv(proposed), dv(config)))
            .await;
        let decoded = f
            .plan_resource_change(plan_req(prior_dv(true), dv(proposed), json(config)))
            .await;
        assert!(copied.diagnostics.is_empty(), "{:?}", copied.diagnostics);
        assert!(decoded.diagnostics.is_empty(), "{:?}", decoded.diagnostics);
        assert_eq!(copied.planned_state.msgpack, decoded.planned_state.msgpack);
        assert_eq!(copied.requires_replace, decoded.requires_replace);
    }
}

/// `create`, `read`, `update` and `delete` of a resource of `Model` that stores nothing:
/// each hands back what it got.
macro_rules! pass_through_handlers {
    ($model:ty) => {
        async fn create(&self, _: &Ctx<Log>, planned: $model) -> Result<$model> {
            Ok(planned)
        }
        async fn read(&self, _: &Ctx<Log>, state: $model) -> Result<Option<$model>> {
            Ok(Some(state))
        }
        async fn update(&self, _: &Ctx<Log>, _: $model, planned: $model) -> Result<$model> {
            Ok(planned)
        }
        async fn delete(&self, _: &Ctx<Log>, _: $model) -> Result<()> {
            Ok(())
        }
    };
}

/// A resource whose planner sets a default: a proposal that is the prior state goes
/// through `Planner::plan_no_change`, not the shortcut for resources without defaults.
struct Tuned;

#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct TunedModel {
    name: Unknown<String>,
    #[tfvalue(optional, computed, default = 3600)]
    ttl: Unknown<Option<i64>>,
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
}

impl Resource<Log> for Tuned {
    type Model = TunedModel;

    pass_through_handlers!(TunedModel);
}

#[tokio::test]
async fn a_proposal_that_is_the_prior_state_plans_defaults_it_lacks() {
    let f = configure(framework().resource("t_tuned", Tuned)).await;
    let tuned = |ttl: Option<i64>, id: Unknown<Option<String>>| TunedModel {
        name: "a".to_owned().into(),
        ttl: ttl.into(),
        id,
    };
    let config = tuned(None, Unknown::null());
    let with_default = tuned(Some(3600), Some("i-1".to_owned()).into());
    // A state written before the default was declared.
    let older = tuned(None, Some("i-1".to_owned()).into());
    for (state, expected) in [
        (&with_default, with_default.clone()),
        (&older, tuned(Some(3600), Unknown::unknown())),
    ] {
        let req = |prior: DynamicValue, config: DynamicValue| PlanResourceChangeRequest {
            type_name: "t_tuned".into(),
            ..plan_req(prior, DynamicValue::encode(state).unwrap(), config)
        };
        let copied = f
            .plan_resource_change(req(
                DynamicValue::encode(state).unwrap(),
                DynamicValue::encode(&config).unwrap(),
            ))
            .await;
        // The prior state and the configuration as JSON: nothing shared with the
        // proposal's bytes, every value decoded.
        let decoded = f
            .plan_resource_change(req(
                DynamicValue {
                    msgpack: Vec::new(),
                    json: tfvalue::json::to_vec(state).unwrap(),
                },
                DynamicValue {
                    msgpack: Vec::new(),
                    json: tfvalue::json::to_vec(&config).unwrap(),
                },
            ))
            .await;
        assert!(copied.diagnostics.is_empty(), "{:?}", copied.diagnostics);
        assert!(decoded.diagnostics.is_empty(), "{:?}", decoded.diagnostics);
        assert_eq!(copied.planned_state.msgpack, decoded.planned_state.msgpack);
        assert_eq!(
            copied.planned_state.decode::<TunedModel>().unwrap(),
            expected
        );
    }
}

#[tokio::test]
async fn apply_routes_create_update_and_delete() {
    let f = configured().await;
    let client = f.client.get().unwrap();
    client.take();
    let planned = item("a", Some(1), Unknown::unknown());

    let resp = f
        .apply_resource_change(apply_req(null(), dv(&planned)))
        .await;
    assert_eq!(client.take(), [r#"create private="planned""#]);
    let created = decode(&resp.new_state).unwrap();
    assert_eq!(created.id, Unknown::from(Some("i-a".to_owned())));
    assert_eq!(resp.private, b"after-create", "set_private replaces it");
    assert_eq!(resp.diagnostics.len(), 1);
    assert_eq!(resp.diagnostics[0].severity, Severity::Warning);

    let changed = Item {
        size: Some(2).into(),
        ..created.clone()
    };
    let resp = f
        .apply_resource_change(apply_req(dv(&created), dv(&changed)))
        .await;
    assert_eq!(client.take(), ["update Some(1) -> Some(2)"]);
    assert_eq!(decode(&resp.new_state), Some(changed.clone()));
    assert_eq!(resp.private, b"planned", "private data passes through");

    let resp = f
        .apply_resource_change(apply_req(dv(&changed), null()))
        .await;
    assert_eq!(client.take(), ["delete a"]);
    assert_eq!(resp.new_state.msgpack, [0xc0]);
    assert!(resp.diagnostics.is_empty());
}

/// The server checks a framework resource's apply against the plan the handler hands
/// back once it has decoded its model (no copy of the plan kept beside the handler's):
/// an update that answers another size than planned is caught, at that attribute, and
/// one that keeps its plan passes.
#[tokio::test]
async fn the_server_checks_an_apply_against_the_plan_handed_back() {
    use crate::server::core::Core;
    use crate::server::erased::Erased;
    let server = Core::new(Erased::new(configured().await));
    let prior = item("a", Some(1), Some("i-a".to_owned()).into());
    for (size, breaks) in [(77, true), (2, false)] {
        let planned = Item {
            size: Some(size).into(),
            ..prior.clone()
        };
        let resp = server
            .apply(
                "t_item".into(),
                dv(&prior),
                dv(&planned),
                dv(&planned),
                Vec::new(),
                DynamicValue::default(),
                None,
            )
            .await;
        if breaks {
            assert_eq!(resp.diagnostics.len(), 1, "{:?}", resp.diagnostics);
            let d = &resp.diagnostics[0];
            assert!(d.is_error());
            assert_eq!(
                d.summary,
                "Provider produced inconsistent result after apply"
            );
            assert_eq!(d.path(), &AttributePath::new().attr("size"));
        } else {
            assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
            assert_eq!(decode(&resp.new_state), Some(planned));
        }
    }
}

/// The same for a plan kept for Terraform before 1.6: the plain plan the framework reads
/// and hands back gets its kept refinements put back, and the new state is checked
/// against them: a create whose id breaks the planned prefix is caught.
#[tokio::test]
async fn the_server_puts_kept_refinements_back_into_the_plan_handed_back() {
    use crate::server::core::Core;
    use crate::server::erased::Erased;
    let server = Core::new(Erased::new(configured().await));
    let config = item("a", Some(1), None.into());
    for (prefix, breaks) in [("x-", true), ("i-", false)] {
        let planned = Item {
            id: Unknown::unknown().with_prefix(prefix),
            etag: Unknown::unknown(),
            ..config.clone()
        };
        let planned = dv(&planned).msgpack;
        let private = crate::server::kept_plan::wrap_plan(&planned, b"", &Item::tf_type())
            .expect("a plan with refinements is kept");
        let plain = crate::server::kept_plan::made_plain(&planned).unwrap();
        assert_ne!(plain, planned);
        let resp = server
            .apply(
                "t_item".into(),
                null(),
                DynamicValue::from_msgpack(plain),
                dv(&config),
                private,
                DynamicValue::default(),
                None,
            )
            .await;
        let errors: Vec<_> = resp.diagnostics.iter().filter(|d| d.is_error()).collect();
        if breaks {
            assert_eq!(errors.len(), 1, "{:?}", resp.diagnostics);
            assert_eq!(
                errors[0].summary,
                "Provider produced inconsistent result after apply"
            );
            assert_eq!(errors[0].path(), &AttributePath::new().attr("id"));
        } else {
            assert!(errors.is_empty(), "{:?}", resp.diagnostics);
            assert_eq!(
                decode(&resp.new_state).unwrap().id.known().cloned(),
                Some(Some("i-a".to_owned()))
            );
        }
    }
}

#[tokio::test]
async fn apply_errors_keep_the_prior_state() {
    let f = configured().await;
    // A failed create (`?` on an I/O error): nothing was created.
    let planned = item("a", Some(13), Unknown::unknown());
    let resp = f
        .apply_resource_change(apply_req(null(), dv(&planned)))
        .await;
    assert_eq!(resp.new_state.msgpack, [0xc0]);
    assert_eq!(resp.diagnostics.len(), 1);
    assert!(resp.diagnostics[0].is_error());
    assert!(
        resp.diagnostics[0].summary.contains("No such file"),
        "{}",
        resp.diagnostics[0]
    );

    // A failed update: the prior state stays, the error at its attribute.
    let prior = item("a", Some(1), Some("i-a".to_owned()).into());
    let planned = Item {
        size: Some(13).into(),
        ..prior.clone()
    };
    let resp = f
        .apply_resource_change(apply_req(dv(&prior), dv(&planned)))
        .await;
    assert_eq!(decode(&resp.new_state), Some(prior));
    assert_eq!(resp.diagnostics.len(), 1);
    assert_eq!(resp.diagnostics[0].to_string(), "unlucky at size");
}

#[tokio::test]
async fn read_of_a_vanished_object_is_null() {
    let f = configured().await;
    let resp = f
        .read_resource(ReadResourceRequest {
            current_identity: None,
            type_name: "t_item".into(),
            current_state: dv(&item("gone", None, Some("i-gone".to_owned()).into())),
            private: Vec::new(),
            provider_meta: DynamicValue::default(),
            ctx: ctx(),
        })
        .await;
    assert!(resp.diagnostics.is_empty());
    assert_eq!(resp.new_state.msgpack, [0xc0]);
}

#[tokio::test]
async fn import_by_id_needs_no_code() {
    let f = configured().await;
    let import = |id: &str| {
        f.import_resource_state(ImportResourceStateRequest {
            identity: None,
            type_name: "t_item".into(),
            id: id.to_owned(),
            ctx: ctx(),
        })
    };
    let resp = import("a").await;
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(resp.imported_resources.len(), 1);
    assert_eq!(resp.imported_resources[0].type_name, "t_item");
    let state = decode(&resp.imported_resources[0].state).unwrap();
    assert_eq!(state, item("a", Some(7), Some("i-a".to_owned()).into()));

    let resp = import("gone").await;
    assert!(resp.imported_resources.is_empty());
    assert_eq!(resp.diagnostics[0].summary, "no such object");
    assert!(
        resp.diagnostics[0]
            .detail
            .contains("`t_item` with name `gone`"),
        "{}",
        resp.diagnostics[0]
    );
}

#[test]
fn import_stub_explains_a_model_that_needs_more_than_the_id() {
    #[derive(TfValue, Serialize, Deserialize, Debug)]
    struct Strict {
        #[tfvalue(computed)]
        id: Unknown<Option<String>>,
        name: Unknown<String>,
    }
    let err = import_stub::<Strict>("id", "x").unwrap_err();
    assert_eq!(err[0].summary, "cannot import by id");
    assert!(
        err[0].detail.contains("implement `Resource::import`"),
        "{err}"
    );
    let err = import_stub::<Strict>("nope", "x").unwrap_err();
    assert!(err[0].detail.contains("no attribute `nope`"), "{err}");
    let ok = import_stub::<Item>("name", "x").unwrap();
    assert_eq!(ok, item("x", None, Unknown::null()));
}

#[tokio::test]
async fn upgrade_through_the_codec() {
    let f = framework();
    let upgrade = |version: i64, json: &str| {
        f.upgrade_resource_state(UpgradeResourceStateRequest::new(
            "t_item",
            version,
            RawState::from_json(json.as_bytes().to_vec()),
            std::sync::Arc::new(Item::schema()),
        ))
    };
    let resp = upgrade(0, r#"{"name":"old","count":3}"#).await;
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(
        decode(&resp.upgraded_state),
        Some(item("old", Some(3), Unknown::null()))
    );
    let resp = upgrade(1, r#"{"name":"new","size":null,"id":"i-new"}"#).await;
    // State without `etag` (written before it existed) reads it as null.
    assert_eq!(
        decode(&resp.upgraded_state),
        Some(Item {
            etag: Unknown::Known(None),
            ..item("new", None, Some("i-new".to_owned()).into())
        })
    );
    let resp = upgrade(2, r#"{}"#).await;
    assert_eq!(resp.diagnostics.len(), 1);
    assert!(
        resp.diagnostics[0]
            .detail
            .contains("newer than this provider's version 1"),
        "{}",
        resp.diagnostics[0]
    );
}

#[tokio::test]
async fn moves_across_types_convert_the_source_state() {
    let f = framework();
    assert!(f.schemas().capabilities.move_resource_state);
    let moved = |provider: &str, source: &str, json: &str| {
        f.move_resource_state(MoveResourceStateRequest::new(
            provider,
            source,
            0,
            RawState::from_json(json.as_bytes().to_vec()),
            "t_item",
            std::sync::Arc::new(Item::schema()),
        ))
    };
    let resp = moved(
        "registry.terraform.io/a/old",
        "old_item",
        r#"{"name":"n","count":2}"#,
    )
    .await;
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    assert_eq!(
        decode(&resp.target_state),
        Some(Item {
            etag: Unknown::Known(None),
            ..item("n", Some(2), Some("i-n".to_owned()).into())
        })
    );
    // The second move takes `t_thing` from one provider only.
    let resp = moved("example.com/x/t", "t_thing", r#"{"name":"m"}"#).await;
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let resp = moved("example.com/y/t", "t_thing", r#"{"name":"m"}"#).await;
    let d = &resp.diagnostics[0];
    assert_eq!(d.summary, "`t_item` cannot take the state of `t_thing`");
    assert!(d.detail.contains("`old_item`, `t_thing`"), "{d}");
    // The source's state is decoded as its model says, at the attribute.
    let resp = moved("a", "old_item", r#"{"name":"n","count":"many"}"#).await;
    let d = &resp.diagnostics[0];
    assert!(
        d.summary
            .contains("the state of `old_item` (schema version 0)"),
        "{d}"
    );
    assert_eq!(d.attribute, Some(AttributePath::new().attr("count")));
    let resp = moved("a", "old_item", r#"{"name":""}"#).await;
    assert_eq!(resp.diagnostics[0].summary, "an old item without a name");
    // A type with no moves, and no such type.
    let no_moves = Framework::new_with::<Cfg>().data_source("t_info", Greet);
    assert!(!no_moves.schemas().capabilities.move_resource_state);
    let resp = f
        .move_resource_state(MoveResourceStateRequest::new(
            "a",
            "old_item",
            0,
            RawState::from_json(b"{}".to_vec()),
            "t_nope",
            std::sync::Arc::new(Item::schema()),
        ))
        .await;
    assert!(
        resp.diagnostics[0].detail.contains("`t_nope`"),
        "{}",
        resp.diagnostics[0]
    );
}

fn token(subject: &str) -> DynamicValue {
    DynamicValue::encode(&Token {
        subject: subject.to_owned().into(),
        token: Unknown::Known(None),
    })
    .unwrap()
}

#[tokio::test]
async fn ephemeral_resources_open_renew_and_close() {
    let f = framework();
    assert_eq!(f.schemas().ephemeral_resources["t_token"], Token::schema());
    let diags = f
        .validate_ephemeral_resource_config(ValidateConfigRequest {
            type_name: "t_token".into(),
            config: token(""),
            ctx: ctx(),
        })
        .await;
    assert_eq!(diags[0].summary, "no subject");
    // Not configured yet.
    let resp = f
        .open_ephemeral_resource(OpenEphemeralResourceRequest::new("t_token", token("a")))
        .await;
    assert_eq!(
        resp.diagnostics[0].summary,
        "the provider is not configured"
    );

    let f = configured().await;
    f.client.get().unwrap().take();
    let resp = f
        .open_ephemeral_resource(OpenEphemeralResourceRequest::new("t_token", token("a")))
        .await;
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let opened: Token = resp.result.decode().unwrap();
    assert_eq!(opened.token, Unknown::Known(Some("tok-a".to_owned())));
    assert_eq!(resp.private, b"a");
    assert_eq!(
        resp.renew_at,
        Some(std::time::UNIX_EPOCH + std::time::Duration::from_secs(60))
    );
    assert_eq!(resp.deferred, None);

    let renewed = f
        .renew_ephemeral_resource(RenewEphemeralResourceRequest::new(
            "t_token",
            resp.private.clone(),
        ))
        .await;
    assert!(renewed.diagnostics.is_empty());
    assert_eq!(
        (renewed.private.as_slice(), renewed.renew_at.is_some()),
        (&b"a"[..], true)
    );
    // A renew that sets no time ends the renewals; private data set replaces it.
    let once = f
        .renew_ephemeral_resource(RenewEphemeralResourceRequest::new(
            "t_token",
            b"once".to_vec(),
        ))
        .await;
    assert_eq!(
        (once.private.as_slice(), once.renew_at),
        (&b"renewed"[..], None)
    );
    let diags = f
        .close_ephemeral_resource(CloseEphemeralResourceRequest::new("t_token", resp.private))
        .await;
    assert!(diags.is_empty());
    assert_eq!(
        f.client.get().unwrap().take(),
        ["open a", "renew a", "renew once", "close a"]
    );

    // A handler's error, and a deferral Terraform did not allow.
    let resp = f
        .open_ephemeral_resource(OpenEphemeralResourceRequest::new(
            "t_token",
            token("nobody"),
        ))
        .await;
    assert_eq!(resp.diagnostics[0].summary, "who?");
    let resp = f
        .open_ephemeral_resource(OpenEphemeralResourceRequest::new("t_token", token("later")))
        .await;
    assert!(resp.deferred.is_none());
    assert!(
        resp.diagnostics[0]
            .summary
            .contains("does not take deferred"),
        "{}",
        resp.diagnostics[0]
    );
    // Allowed: the result is unknown.
    let mut req = OpenEphemeralResourceRequest::new("t_token", token("later"));
    req.ctx = Context::detached()
        .with_client_capabilities(ClientCapabilities::default().with_deferral_allowed(true));
    let resp = f.open_ephemeral_resource(req).await;
    assert_eq!(
        resp.deferred,
        Some(Deferred::new(DeferredReason::AbsentPrereq))
    );
    let ty = Token::tf_type();
    assert!(!resp.result.decode_value(&ty).unwrap().is_wholly_known());
}

#[tokio::test]
async fn data_sources_read_their_configuration() {
    let f = configured().await;
    let read = |name: &str| {
        let config = DynamicValue::encode(&Info {
            name: name.to_owned().into(),
            greeting: Unknown::null(),
        })
        .unwrap();
        f.read_data_source(ReadDataSourceRequest {
            type_name: "t_info".into(),
            config,
            provider_meta: DynamicValue::default(),
            ctx: ctx(),
        })
    };
    let resp = read("Zoë").await;
    let info: Info = resp.state.decode().unwrap();
    assert_eq!(info.greeting, Unknown::from(Some("hello, Zoë".to_owned())));
    let resp = read("").await;
    assert_eq!(resp.diagnostics[0].to_string(), "who? at name");
}

#[tokio::test]
async fn an_error_without_an_error_diagnostic_still_fails() {
    struct Shy;
    impl Resource for Shy {
        type Model = Item;
        async fn create(&self, _: &Ctx, _: Item) -> Result<Item> {
            Err(Diagnostic::warning("only a warning").into())
        }
        async fn read(&self, _: &Ctx, i: Item) -> Result<Option<Item>> {
            Ok(Some(i))
        }
        async fn update(&self, _: &Ctx, _: Item, i: Item) -> Result<Item> {
            Ok(i)
        }
        async fn delete(&self, _: &Ctx, _: Item) -> Result<()> {
            Ok(())
        }
    }
    let f = Framework::new().resource("t_item", Shy);
    let resp = f
        .apply_resource_change(apply_req(null(), dv(&item("a", None, Unknown::unknown()))))
        .await;
    assert_eq!(resp.diagnostics.len(), 2);
    assert!(!resp.diagnostics[0].is_error());
    assert_eq!(resp.diagnostics[1].summary, "the operation failed");
}

/// A schema served without one of the model's attributes (as over protocol 5): decoded as
/// null, dropped when encoded.
#[tokio::test]
async fn a_schema_narrower_than_the_model() {
    struct Narrow;
    impl Resource for Narrow {
        type Model = Item;
        fn schema(&self) -> tfvalue::schema::Schema {
            let mut s = Item::schema();
            s.block.attributes.remove("size");
            s
        }
        async fn create(&self, _: &Ctx, mut i: Item) -> Result<Item> {
            assert_eq!(i.size, Unknown::null());
            i.id = Some("n-1".to_owned()).into();
            i.size = Some(5).into();
            Ok(i)
        }
        async fn read(&self, _: &Ctx, i: Item) -> Result<Option<Item>> {
            Ok(Some(i))
        }
        async fn update(&self, _: &Ctx, _: Item, i: Item) -> Result<Item> {
            Ok(i)
        }
        async fn delete(&self, _: &Ctx, _: Item) -> Result<()> {
            Ok(())
        }
    }
    let f = Framework::new().resource("t_item", Narrow);
    let ty = Type::object([
        ("name", Type::String),
        ("id", Type::String),
        ("etag", Type::String),
    ]);
    let planned = DynamicValue::encode_value(
        &Value::Object(
            [
                ("name".to_owned(), Value::from("n")),
                ("id".to_owned(), Value::Unknown(Refinements::new())),
                ("etag".to_owned(), Value::Null),
            ]
            .into(),
        ),
        &ty,
    )
    .unwrap();
    let resp = f.apply_resource_change(apply_req(null(), planned)).await;
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let v = resp.new_state.decode_value(&ty).unwrap();
    assert_eq!(v["id"], Value::from("n-1"));
    assert!(v.get("size").is_none());
}

/// A known list of nested objects whose element is wholly unknown, as Terraform sends
/// for `subnets = [{..}, var.x ? {..} : {..}]`: the model declares the element
/// `Unknown<..>`, and the framework validates and plans it with the derived schema and
/// planner (no override of `Resource::schema` or `Resource::planner`).
#[tokio::test]
async fn nested_objects_whose_elements_may_be_unknown() {
    #[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
    struct Subnet {
        cidr: Unknown<String>,
        #[tfvalue(computed)]
        id: Unknown<Option<String>>,
    }
    #[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
    struct Net {
        name: Unknown<String>,
        #[tfvalue(nested_type, optional)]
        subnets: Unknown<Option<Vec<Unknown<Subnet>>>>,
    }
    struct N;
    impl Resource for N {
        type Model = Net;
        async fn create(&self, _: &Ctx, n: Net) -> Result<Net> {
            Ok(n)
        }
        async fn read(&self, _: &Ctx, n: Net) -> Result<Option<Net>> {
            Ok(Some(n))
        }
        async fn update(&self, _: &Ctx, _: Net, n: Net) -> Result<Net> {
            Ok(n)
        }
        async fn delete(&self, _: &Ctx, _: Net) -> Result<()> {
            Ok(())
        }
    }
    let f = Framework::new().resource("t_net", N);
    let ty = Net::tf_type();
    let known = Value::Object(
        [
            ("cidr".to_owned(), Value::from("10.0.0.0/24")),
            ("id".to_owned(), Value::Null),
        ]
        .into(),
    );
    let config = DynamicValue::encode_value(
        &Value::Object(
            [
                ("name".to_owned(), Value::from("n")),
                (
                    "subnets".to_owned(),
                    Value::List(vec![known, Value::Unknown(Refinements::new())]),
                ),
            ]
            .into(),
        ),
        &ty,
    )
    .unwrap();
    let diags = f
        .validate_resource_config(ValidateConfigRequest {
            type_name: "t_net".into(),
            config: config.clone(),
            ctx: ctx(),
        })
        .await;
    assert!(diags.is_empty(), "{diags:?}");
    let resp = f
        .plan_resource_change(PlanResourceChangeRequest {
            prior_identity: None,
            type_name: "t_net".into(),
            prior_state: null(),
            proposed_new_state: config.clone(),
            config,
            prior_private: Vec::new(),
            provider_meta: DynamicValue::default(),
            ctx: ctx(),
        })
        .await;
    assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
    let planned = resp.planned_state.decode_value(&ty).unwrap();
    assert_eq!(planned["subnets"][0]["cidr"], "10.0.0.0/24");
    assert!(
        planned["subnets"][0]["id"].is_unknown(),
        "computed, unknown on create"
    );
    assert!(planned["subnets"][1].is_unknown(), "{planned:?}");
    let net: Net = resp.planned_state.decode().unwrap();
    let Unknown::Known(Some(subnets)) = &net.subnets else {
        panic!("{net:?}");
    };
    assert!(subnets[1].is_unknown() && !subnets[0].is_unknown());
    // The schema is the one of a list of nested objects.
    let attr = &Net::block().attributes["subnets"];
    assert!(matches!(&attr.ty, tfvalue::schema::AttributeType::Nested(n)
        if n.attributes.contains_key("cidr")));
}

/// A function of every kind of parameter: what each may take follows from its type.
struct Kinds;

impl Function for Kinds {
    type Args = (
        String,
        Option<u64>,
        Unknown<String>,
        tfvalue::Number,
        tfvalue::Dynamic,
        Variadic<Option<String>>,
    );
    type Return = String;

    fn definition(&self) -> FunctionDefinition {
        FunctionDefinition::new("Every kind")
            .markdown_description("Takes *everything*.")
            .deprecated("use nothing")
            .parameter("s", "a string")
            .parameter("n", "null or a whole number")
            .parameter("u", "unknown or a string")
            .parameter("x", "an exact number")
            .parameter("d", "anything")
            .parameter("rest", "strings or nulls")
    }

    fn call(&self, (s, n, u, x, d, rest): Self::Args) -> Result<String, FunctionError> {
        Ok(format!(
            "{s} {n:?} {} {x} {} {:?}",
            u.known().map_or("?", String::as_str),
            d.value().kind_name(),
            rest.0
        ))
    }
}

fn call_kinds(args: &[&[u8]]) -> CallFunctionResponse {
    let f = Framework::new().function("kinds", Kinds);
    let sig = f.schemas().functions["kinds"].clone();
    let args = args
        .iter()
        .map(|a| DynamicValue::from_msgpack(a.to_vec()))
        .collect();
    futures_util::FutureExt::now_or_never(
        f.call_function(CallFunctionRequest::new("kinds", args, sig)),
    )
    .unwrap()
}

#[test]
fn a_functions_signature_follows_from_its_types() {
    let f = Framework::new().function("kinds", Kinds);
    let sig = &f.schemas().functions["kinds"];
    let facts: Vec<_> = sig
        .parameters
        .iter()
        .chain(&sig.variadic_parameter)
        .map(|p| {
            (
                p.name.as_str(),
                p.ty.to_string(),
                p.allow_null_value,
                p.allow_unknown_values,
            )
        })
        .collect();
    assert_eq!(
        facts,
        [
            ("s", "string".to_owned(), false, false),
            ("n", "number".to_owned(), true, false),
            ("u", "string".to_owned(), false, true),
            ("x", "number".to_owned(), false, false),
            ("d", "any".to_owned(), true, true),
            ("rest", "string".to_owned(), true, false),
        ]
    );
    assert_eq!(sig.parameters.len(), 5, "the variadic one is apart");
    assert_eq!(sig.return_type, Type::String);
    assert_eq!(sig.summary, "Every kind");
    assert_eq!(sig.description_kind, tfvalue::schema::StringKind::Markdown);
    assert_eq!(sig.deprecation_message, "use nothing");
    assert_eq!(sig.parameters[1].description, "null or a whole number");
}

#[test]
fn a_function_decodes_its_arguments_exactly() {
    // 2^64 + 1 as a decimal string: a Number keeps every digit.
    let big = b"\xb418446744073709551617";
    let dynamic = b"\x92\xc4\x08\"string\"\xa1z";
    let r = call_kinds(&[
        b"\xa1a",
        b"\xc0",
        b"\xd4\x00\x00",
        big,
        dynamic,
        b"\xa1p",
        b"\xc0",
    ]);
    assert_eq!(r.error, None);
    let text: String = r.result.decode().unwrap();
    assert_eq!(
        text,
        r#"a None ? 18446744073709551617 string [Some("p"), None]"#
    );
    let r = call_kinds(&[b"\xa1a", b"\x07", b"\xa1u", b"\x01", b"\xc0"]);
    let text: String = r.result.decode().unwrap();
    assert_eq!(text, "a Some(7) u 1 null []");
    // A wrong argument is an error at its index (the server checks first; this is
    // what a provider called in process sees).
    let e = call_kinds(&[b"\xa1a", b"\xa1x", b"\xa1u", b"\x01", b"\xc0"])
        .error
        .unwrap();
    assert_eq!(e.function_argument, Some(1));
}

struct Miscounted;

impl Function for Miscounted {
    type Args = (String, String);
    type Return = bool;

    fn definition(&self) -> FunctionDefinition {
        FunctionDefinition::new("two parameters, one named").parameter("a", "")
    }

    fn call(&self, _: Self::Args) -> Result<bool, FunctionError> {
        Ok(true)
    }
}

#[test]
#[should_panic(expected = "function `m`: its definition names 1 parameters, and its Args has 2")]
fn a_definition_must_name_every_parameter() {
    let _ = Framework::new().function("m", Miscounted);
}

struct VariadicFirst;

impl Function for VariadicFirst {
    type Args = (Variadic<String>, String);
    type Return = bool;

    fn definition(&self) -> FunctionDefinition {
        FunctionDefinition::new("")
            .parameter("a", "")
            .parameter("b", "")
    }

    fn call(&self, _: Self::Args) -> Result<bool, FunctionError> {
        Ok(true)
    }
}

#[test]
#[should_panic(expected = "only the last parameter may be Variadic")]
fn only_the_last_parameter_is_variadic() {
    let _ = Framework::new().function("v", VariadicFirst);
}

/// A resource with an identity, for the schema tests.
struct Named;

#[derive(TfValue, Serialize, Deserialize)]
struct NamedIdentity {
    name: String,
}

impl Resource<Log> for Named {
    type Model = Item;

    fn identity(&self) -> Option<ResourceIdentity<Item>> {
        Some(ResourceIdentity::new(
            Codec::<NamedIdentity>::new(),
            |i: &Item| {
                Some(NamedIdentity {
                    name: i.name.known()?.clone(),
                })
            },
            |i| i.name,
        ))
    }

    pass_through_handlers!(Item);
}

#[test]
fn a_type_registered_again_replaces_its_schemas_identity_too() {
    let f = framework().resource("t_named", Named);
    let s = f.schemas();
    assert!(s.identities.contains_key("t_named"));
    assert!(!s.identities.contains_key("t_item"));
    assert_eq!(s.resources.len(), 2);
    // The same name again, now a resource without an identity: the identity goes too.
    let s = framework()
        .resource("t_named", Named)
        .resource("t_named", Items)
        .schemas();
    assert!(!s.identities.contains_key("t_named"), "{:?}", s.identities);
    assert_eq!(s.resources["t_named"], Item::schema());
    // And the other way round.
    let s = framework().resource("t_item", Named).schemas();
    assert!(s.identities.contains_key("t_item"));
    assert_eq!(s.resources.len(), 1);
}

/// A create, a plan of no change and an update of the item `a` (size 1, then 2) of
/// the resource type `type_name`.
fn three_plans(type_name: &str) -> [PlanResourceChangeRequest; 3] {
    let prior = dv(&item("a", Some(1), Some("i-a".to_owned()).into()));
    let req = |prior: DynamicValue, proposed: DynamicValue, config: DynamicValue| {
        PlanResourceChangeRequest {
            type_name: type_name.into(),
            ..plan_req(prior, proposed, config)
        }
    };
    [
        req(
            null(),
            dv(&item("a", Some(1), Unknown::null())),
            dv(&item("a", Some(1), Unknown::null())),
        ),
        req(
            prior.clone(),
            prior.clone(),
            dv(&item("a", Some(1), Unknown::null())),
        ),
        req(
            prior,
            dv(&item("a", Some(2), Some("i-a".to_owned()).into())),
            dv(&item("a", Some(2), Unknown::null())),
        ),
    ]
}

/// `Items` without a `modify_plan` of its own.
struct Plain;

impl Resource<Log> for Plain {
    type Model = Item;

    pass_through_handlers!(Item);
}

/// A resource whose `modify_plan` reads the prior state and then hands over to
/// `Plain`'s (the default).
struct Wrapper;

impl Resource<Log> for Wrapper {
    type Model = Item;

    async fn modify_plan(
        &self,
        cx: &Ctx<Log>,
        prior: Option<&Item>,
        planned: &mut Item,
    ) -> Result<()> {
        let size = prior.and_then(|p| p.size.value().copied());
        cx.client().push(format!("wrapper prior size {size:?}"));
        Plain.modify_plan(cx, prior, planned).await
    }
    pass_through_handlers!(Item);
}

/// A resource that keeps the default `modify_plan` plans without the prior state's
/// model once the default ran, with the same plans; one whose own hook hands over to
/// another type's default still gets the prior state every time.
#[tokio::test]
async fn the_prior_model_is_built_only_for_a_modify_plan_of_the_resources_own() {
    let f = configure(
        framework()
            .resource("t_plain", Plain)
            .resource("t_wrapper", Wrapper),
    )
    .await;
    let client = f.client.get().unwrap();
    let default_hook = |name: &str| {
        f.core
            .resources
            .get(name)
            .and_then(|r| r.as_any().downcast_ref::<Registered<Plain, Log>>())
            .map(|r| r.default_hook.load(std::sync::atomic::Ordering::Relaxed))
    };
    assert_eq!(
        default_hook("t_plain"),
        Some(false),
        "not known before a plan"
    );
    let mut first = Vec::new();
    for round in 0..2 {
        for (i, req) in three_plans("t_plain").into_iter().enumerate() {
            let resp = f.plan_resource_change(req).await;
            assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
            if round == 0 {
                first.push(resp.planned_state.msgpack);
            } else {
                assert_eq!(resp.planned_state.msgpack, first[i], "plan {i}");
            }
        }
        assert_eq!(default_hook("t_plain"), Some(true));
    }
    let update = decode(&DynamicValue::from_msgpack(first[2].clone())).unwrap();
    assert_eq!(update.id, Unknown::from(Some("i-a".to_owned())));
    assert_eq!(update.etag, Unknown::unknown());
    assert_eq!(update.size, Unknown::from(Some(2)));

    client.take();
    for _ in 0..2 {
        for req in three_plans("t_wrapper") {
            let resp = f.plan_resource_change(req).await;
            assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
        }
    }
    let seen = [
        "wrapper prior size None",
        "wrapper prior size Some(1)",
        "wrapper prior size Some(1)",
    ];
    assert_eq!(client.take(), [seen, seen].concat());
}

/// A resource with an identity and no `modify_plan` of its own: every plan, before and
/// after the framework knows the hook is the default, carries the planned identity
/// (the shortcuts without a model are for resources without one).
#[tokio::test]
async fn plans_of_a_resource_with_an_identity_carry_it_every_time() {
    let f = configure(framework().resource("t_named", Named)).await;
    for _ in 0..2 {
        for req in three_plans("t_named") {
            let resp = f.plan_resource_change(req).await;
            assert!(resp.diagnostics.is_empty(), "{:?}", resp.diagnostics);
            let identity: NamedIdentity = resp
                .planned_identity
                .expect("a planned identity")
                .decode()
                .unwrap();
            assert_eq!(identity.name, "a");
        }
    }
}

/// Updates planned over the request's bytes answer what planning the decoded values
/// answers (a request in JSON is planned over values): before and after the framework
/// knows the hook is the default, for a change that keeps the resource and one that
/// replaces it.
#[tokio::test]
async fn updates_over_the_bytes_plan_what_updates_over_values_plan() {
    let f = configure(framework().resource("t_plain", Plain)).await;
    let json = |dv: &DynamicValue| DynamicValue {
        msgpack: Vec::new(),
        json: tfvalue::json::to_vec(&decode(dv).unwrap()).unwrap(),
    };
    let [_, _, update] = three_plans("t_plain");
    let replace = PlanResourceChangeRequest {
        proposed_new_state: dv(&item("b", Some(2), Some("i-a".to_owned()).into())),
        config: dv(&item("b", Some(2), Unknown::null())),
        ..plan_req(update.prior_state.clone(), null(), null())
    };
    let replace = PlanResourceChangeRequest {
        type_name: "t_plain".into(),
        ..replace
    };
    for _ in 0..2 {
        for (req, replaces) in [(&update, false), (&replace, true)] {
            let by_bytes = f.plan_resource_change(req.clone()).await;
            let by_values = f
                .plan_resource_change(PlanResourceChangeRequest {
                    prior_state: json(&req.prior_state),
                    config: json(&req.config),
                    ..req.clone()
                })
                .await;
            assert!(
                by_bytes.diagnostics.is_empty(),
                "{:?}",
                by_bytes.diagnostics
            );
            assert!(
                by_values.diagnostics.is_empty(),
                "{:?}",
                by_values.diagnostics
            );
            assert_eq!(
                by_bytes.planned_state.msgpack,
                by_values.planned_state.msgpack
            );
            assert_eq!(by_bytes.requires_replace, by_values.requires_replace);
            assert_eq!(!by_bytes.requires_replace.is_empty(), replaces);
            let planned = decode(&by_bytes.planned_state).unwrap();
            assert_eq!(planned.etag, Unknown::unknown());
        }
    }
}
