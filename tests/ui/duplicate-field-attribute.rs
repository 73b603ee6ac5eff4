use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(optional, optional)]
    name: Option<String>,
}

fn main() {}
