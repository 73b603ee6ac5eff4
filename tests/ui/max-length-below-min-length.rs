use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(min_length = 8, max_length = 4)]
    name: String,
}

fn main() {}
