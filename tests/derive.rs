//! `#[derive(TfValue)]`: derived schemas, implied types and serde encodings agree.

use tfvalue::schema::{Attribute, Block, NestedBlock};
use tfvalue::{TfModel, TfValue, Type, Unknown};

#[test]
fn smoke() {
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Rule {
        port: u16,
    }
    /// A bucket.
    #[derive(TfValue)]
    #[allow(dead_code)]
    struct Bucket {
        /// The name.
        name: String,
        id: Unknown<Option<String>>,
        #[tfvalue(block, max_items = 2)]
        rule: Vec<Rule>,
    }
    let b = Bucket::block();
    assert_eq!(Bucket::tf_type().to_string(), "object({id=string,name=string,rule=list(object({port=number}))})");
    assert_eq!(b.description.as_deref(), Some("A bucket."));
    let _ = (Attribute::required(Type::String), Block::new(), NestedBlock::list(Block::new()));
}
