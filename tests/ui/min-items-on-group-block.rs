use tfvalue::TfValue;

#[derive(TfValue)]
struct Timeouts {
    #[tfvalue(optional)]
    create: Option<String>,
}

#[derive(TfValue)]
struct Server {
    #[tfvalue(block = "group", min_items = 1)]
    timeouts: Timeouts,
}

fn main() {}
