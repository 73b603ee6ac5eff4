use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(required, optional)]
    name: String,
}

fn main() {}
