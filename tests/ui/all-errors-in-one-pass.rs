use tfvalue::TfValue;

// Two unrelated mistakes: both are reported by one compile.
#[derive(TfValue)]
struct Server {
    #[tfvalue(requird)]
    name: String,
    #[tfvalue(required, optional)]
    size: Option<String>,
}

fn main() {}
