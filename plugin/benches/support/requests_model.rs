// The model, handler and provider of `requests.rs`, also measured by `plugin/peer`
// (which includes this file): both benches measure the same provider.

/// A rule of an instance (a nested block).
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Rule {
    #[tfvalue(required)]
    port: Unknown<i64>,
    #[tfvalue(required)]
    protocol: Unknown<String>,
    #[tfvalue(optional)]
    cidrs: Unknown<Option<Vec<String>>>,
}

/// A cloud instance, as providers model one: required and optional attributes (which may
/// be unknown in a plan), computed ones, a map, lists, a block list.
#[derive(TfValue, Serialize, Deserialize, Clone, Debug, PartialEq)]
struct Instance {
    #[tfvalue(computed)]
    id: Unknown<Option<String>>,
    #[tfvalue(computed)]
    arn: Unknown<Option<String>>,
    #[tfvalue(computed)]
    created_at: Unknown<Option<String>>,
    #[tfvalue(required)]
    name: Unknown<String>,
    #[tfvalue(optional)]
    description: Unknown<Option<String>>,
    #[tfvalue(optional)]
    image: Unknown<Option<String>>,
    #[tfvalue(optional)]
    zone: Unknown<Option<String>>,
    #[tfvalue(optional)]
    size: Unknown<Option<i64>>,
    #[tfvalue(optional)]
    disk_gb: Unknown<Option<i64>>,
    #[tfvalue(optional)]
    price: Unknown<Option<f64>>,
    #[tfvalue(optional)]
    enabled: Unknown<Option<bool>>,
    #[tfvalue(optional)]
    monitoring: Unknown<Option<bool>>,
    #[tfvalue(optional)]
    tags: Unknown<Option<BTreeMap<String, String>>>,
    #[tfvalue(optional)]
    labels: Unknown<Option<Vec<String>>>,
    #[tfvalue(optional)]
    security_groups: Unknown<Option<Vec<String>>>,
    #[tfvalue(block)]
    rule: Unknown<Vec<Rule>>,
}

/// The configuration of an instance with `tags` tags and `rules` rules.
fn config(tags: usize, rules: usize) -> Instance {
    Instance {
        id: Unknown::null(),
        arn: Unknown::null(),
        created_at: Unknown::null(),
        name: "web-server-01".to_owned().into(),
        description: Some("the front end of the shop, behind the load balancer".to_owned()).into(),
        image: Some("ami-0123456789abcdef0".to_owned()).into(),
        zone: Some("eu-west-1a".to_owned()).into(),
        size: Some(4).into(),
        disk_gb: Some(120).into(),
        price: Some(0.0234).into(),
        enabled: Some(true).into(),
        monitoring: Some(false).into(),
        tags: Some(
            (0..tags)
                .map(|i| {
                    (
                        format!("tag-{i:05}"),
                        format!("value number {i} of the instance"),
                    )
                })
                .collect(),
        )
        .into(),
        labels: Some((0..5).map(|i| format!("label-{i}")).collect()).into(),
        security_groups: Some(vec!["sg-0a1b2c3d".to_owned(), "sg-4e5f6a7b".to_owned()]).into(),
        rule: (0..rules)
            .map(|i| Rule {
                port: (8000 + i as i64).into(),
                protocol: "tcp".to_owned().into(),
                cidrs: Some(vec![
                    "10.0.0.0/8".to_owned(),
                    format!("192.168.{}.0/24", i % 256),
                ])
                .into(),
            })
            .collect::<Vec<_>>()
            .into(),
    }
}

fn dv<T: Serialize>(v: &T) -> DynamicValue {
    DynamicValue::encode(v).expect("encode")
}

/// The provider: one resource, written as the README teaches (typed decode, computed
/// attributes planned unknown and set at apply, typed encode).
struct Bench;

fn fail(e: tfvalue::Error) -> Diagnostic {
    Diagnostic::from_value_error("invalid value", &e)
}

impl Bench {
    fn plan(req: &PlanResourceChangeRequest) -> Result<PlanResourceChangeResponse, Diagnostic> {
        let prior: Option<Instance> = req.prior_state.decode().map_err(fail)?;
        let _config: Option<Instance> = req.config.decode().map_err(fail)?;
        let Some(mut planned) = req
            .proposed_new_state
            .decode::<Option<Instance>>()
            .map_err(fail)?
        else {
            return Ok(PlanResourceChangeResponse::new(
                req.proposed_new_state.clone(),
            ));
        };
        if prior.is_none() {
            planned.id = Unknown::unknown();
            planned.arn = Unknown::unknown();
            planned.created_at = Unknown::unknown();
        }
        Ok(PlanResourceChangeResponse::new(dv(&planned)))
    }

    fn apply(req: &ApplyResourceChangeRequest) -> Result<ApplyResourceChangeResponse, Diagnostic> {
        let _prior: Option<Instance> = req.prior_state.decode().map_err(fail)?;
        let _config: Option<Instance> = req.config.decode().map_err(fail)?;
        let Some(mut new) = req
            .planned_state
            .decode::<Option<Instance>>()
            .map_err(fail)?
        else {
            return Ok(ApplyResourceChangeResponse::new(req.planned_state.clone()));
        };
        if new.id.is_unknown() {
            new.id = Unknown::Known(Some("i-0123456789".to_owned()));
            new.arn = Unknown::Known(Some(
                "arn:aws:ec2:eu-west-1:123:instance/i-0123456789".to_owned(),
            ));
            new.created_at = Unknown::Known(Some("2026-12-01T12:00:00Z".to_owned()));
        }
        Ok(ApplyResourceChangeResponse::new(dv(&new)))
    }
}

impl Provider for Bench {
    fn schemas(&self) -> Schemas {
        Schemas::new().resource("bench_instance", Instance::schema())
    }

    async fn plan_resource_change(
        &self,
        req: PlanResourceChangeRequest,
    ) -> PlanResourceChangeResponse {
        Bench::plan(&req).unwrap_or_else(Into::into)
    }

    async fn apply_resource_change(
        &self,
        req: ApplyResourceChangeRequest,
    ) -> ApplyResourceChangeResponse {
        Bench::apply(&req).unwrap_or_else(Into::into)
    }
}
