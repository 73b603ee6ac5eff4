use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(optional)]
    note: String,
}

fn main() {}
