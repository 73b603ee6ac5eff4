use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(min_items = 1)]
    names: Vec<String>,
}

fn main() {}
