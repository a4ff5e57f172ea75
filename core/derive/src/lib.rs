//! `#[derive(FromQuery)]`: the HTTP parser of a request type of the Waymark contract, derived
//! from its field list.
//!
//! Every request type of `waymark_core::api` is built by the local server from the decoded
//! `(name, value)` pairs of the query string, two input headers, the path parameters and the raw
//! body. The derive writes that parser: it reads each field with a `QueryReader` (which records
//! every problem instead of stopping at the first and reports unknown parameters), then ends
//! with `conclude` (or `conclude_body` when a JSON body is read). A request without a body gets
//! `impl FromQuery` (and so `FromRequestParts` through the blanket impl); a request with one
//! gets `impl FromRequestParts`. Parsing does not run the request's `Validate` rules: the engine
//! does, once, after authorization.
//!
//! # How a field is read
//!
//! A field is a query parameter unless an attribute says otherwise. Its name is the field name,
//! or the `#[serde(rename = "...")]` of the field. What its type says (through the traits
//! `QueryField` and `Presence` of `waymark_core::api::query`):
//!
//! - how one value parses: `String` as is, integers, `f64`, `bool` (`true`/`false`/`1`/`0`),
//!   `LatLng` (`lat,lng`), `Vec<String>` (a `|` list), every vocabulary enum;
//! - whether it may be absent: an `Option<_>` is `None` when absent; any other field is
//!   required, unless it has a serde default: `#[serde(default)]` gives `Default::default()`,
//!   `#[serde(default = "path")]` gives `path()` (the same default as the JSON form).
//!
//! Reading order: headers, then path parameters, then query parameters, each in field order;
//! then the `extra` rule; then the body. That order is the order of the reported problems and
//! the order of the accepted names listed by an unknown-parameter error.
//!
//! # Attributes
//!
//! Field attributes, `#[query(...)]`:
//!
//! | attribute | meaning |
//! |---|---|
//! | `with = parse_fn` | parse the value with `fn(Loc, &str, &str) -> Result<V, FieldError>` (arguments: location, parameter name, raw value) instead of the type's parser; `V` is the field type, or `T` for an `Option<T>` field |
//! | `form = "..."` | how the "field required" message describes the value (`` `lat,lng` ``); any `&str` expression; by default the type's `QueryField::FORM`, or no hint with `with` |
//! | `read = read_fn` | read the field with `fn(&mut QueryReader<'_>) -> T`, for a field made of several parameters (the stores centre, from `lat` and `lng`) |
//! | `params = "a, b"` | with `read`: the numeric query parameters the reader takes, for the description |
//! | `header` | an input header: the field of `RequestHeaders` of the same name (`accept_language`, `x_field_mask`); an `Option<_>`, parsed with `with` when given (errors at `["header", "x-field-mask"]`, the name with dashes) |
//! | `path` | the next path parameter (the first `path` field is the first parameter of the path), a `String`; empty or absent gives `missing` at `["path", name]` |
//! | `body` | the JSON body, deserialized into the field's type (at most one such field) |
//!
//! Struct attributes, `#[query(...)]`:
//!
//! | attribute | meaning |
//! |---|---|
//! | `body` | the whole request is the JSON body (the query may only hold credentials); fields take no attribute |
//! | `extra = rule_fn` | a rule on the raw query, `fn(&QueryReader<'_>) -> Vec<FieldError>`, whose errors follow the reader's (geocode's "`address` or `latlng`") |
//!
//! # Example
//!
//! ```ignore
//! use serde::{Deserialize, Serialize};
//! use waymark_core::api::{FieldError, FromQuery, LatLng, Loc, QueryReader, TravelMode};
//!
//! fn default_radius() -> u32 {
//!     1000
//! }
//!
//! fn parse_tags(loc: Loc, name: &str, s: &str) -> Result<Vec<String>, FieldError> {
//!     waymark_core::api::parse_list(loc, name, s, ',')
//! }
//!
//! fn near_or_tags(q: &QueryReader<'_>) -> Vec<FieldError> {
//!     if q.given("near") || q.given("tags") {
//!         Vec::new()
//!     } else {
//!         vec![FieldError::missing(Loc::Query, "near")]
//!     }
//! }
//!
//! #[derive(Debug, Default, Serialize, Deserialize, FromQuery)]
//! #[query(extra = near_or_tags)]
//! pub struct ShopsRequest {
//!     /// Path: `/venues/{venue_id}/shops`.
//!     #[query(path)]
//!     pub venue_id: String,
//!     /// Required `lat,lng` (the type says so).
//!     pub near: LatLng,
//!     /// Optional, absent = `None`.
//!     #[serde(default)]
//!     pub mode: Option<TravelMode>,
//!     /// Default from serde.
//!     #[serde(default = "default_radius")]
//!     pub radius: u32,
//!     /// Custom form, parameter name `tag`.
//!     #[serde(rename = "tag", default)]
//!     #[query(with = parse_tags)]
//!     pub tags: Vec<String>,
//!     /// Header `Accept-Language`.
//!     #[serde(default)]
//!     #[query(header)]
//!     pub accept_language: Option<String>,
//! }
//! ```
//!
//! The request types of `waymark_core::api` are the compiled examples (the module
//! `waymark_core::api::query` has a doc test of its own).
//!
//! # The description
//!
//! The derive also writes `impl DescribeRequest`: the parameters in reading order (name, where,
//! required or not, the field's doc comment, the schema of one raw value from
//! `QueryField::schema`, a string for `with` fields and headers), and, with the core crate's
//! `schema` feature, the JSON Schema of the body. The local server's `/openapi.json` is built
//! from it, so the description is the parser's own field list.
//!
//! Generated code names the core crate `::waymark_core` (the core crate declares
//! `extern crate self as waymark_core` so that it can use the derive itself).

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Expr, Fields, Ident, LitStr, Type};

/// Derives the HTTP parser of a request type; see the crate documentation for the attributes.
#[proc_macro_derive(FromQuery, attributes(query))]
pub fn derive_from_query(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Where a field comes from.
enum Source {
    /// A query parameter, parsed by the type or by `with`.
    Query,
    /// A query field read by a custom reader.
    Read(Expr),
    /// An input header.
    Header,
    /// A path parameter.
    Path,
    /// The JSON body.
    Body,
}

/// The default of a field, from serde.
enum DefaultValue {
    /// None: the field is required unless it is an `Option`.
    None,
    /// `#[serde(default)]`.
    Trait,
    /// `#[serde(default = "path")]`.
    Function(syn::ExprPath),
}

/// What the attributes say about one field.
struct FieldSpec {
    ident: Ident,
    ty: Type,
    /// Parameter name (serde rename or the field name).
    name: String,
    source: Source,
    with: Option<Expr>,
    form: Option<Expr>,
    default: DefaultValue,
    /// The field's doc comment.
    doc: String,
    /// The query parameters a `read` field takes (`params = "lat, lng"`), for the description.
    params: Vec<String>,
}

/// What the struct attributes say.
#[derive(Default)]
struct ContainerSpec {
    body: bool,
    extra: Option<Expr>,
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "FromQuery applies to structs with named fields",
        ));
    };
    let fields: Vec<&syn::Field> = match &data.fields {
        Fields::Named(named) => named.named.iter().collect(),
        Fields::Unit => Vec::new(),
        Fields::Unnamed(_) => {
            return Err(syn::Error::new(
                input.ident.span(),
                "FromQuery applies to structs with named fields",
            ));
        }
    };
    let container = container_spec(input)?;
    if container.body {
        for f in &fields {
            if let Some(attr) = f.attrs.iter().find(|a| a.path().is_ident("query")) {
                return Err(syn::Error::new(
                    attr.span(),
                    "the fields of a `#[query(body)]` struct belong to the body: they take no `#[query]` attribute",
                ));
            }
        }
    } else {
        check_container_serde(input)?;
    }
    let specs = if container.body {
        Vec::new()
    } else {
        fields
            .iter()
            .map(|f| field_spec(f))
            .collect::<syn::Result<Vec<_>>>()?
    };
    let body_fields: Vec<&FieldSpec> = specs
        .iter()
        .filter(|s| matches!(s.source, Source::Body))
        .collect();
    if let Some(second) = body_fields.get(1) {
        return Err(syn::Error::new(
            second.ident.span(),
            "only one field can be `#[query(body)]`",
        ));
    }

    let api = quote!(::waymark_core::api);
    let mut reads = Vec::new();
    // Headers, then path parameters, then query parameters, each in field order.
    for spec in specs.iter().filter(|s| matches!(s.source, Source::Header)) {
        reads.push(header_read(spec, &api));
    }
    for (index, spec) in specs
        .iter()
        .filter(|s| matches!(s.source, Source::Path))
        .enumerate()
    {
        let local = local(&spec.ident);
        let name = &spec.name;
        reads.push(quote! { let #local = __q.path(__path, #index, #name); });
    }
    for spec in &specs {
        match &spec.source {
            Source::Query => reads.push(query_read(spec, &api)),
            Source::Read(reader) => {
                let local = local(&spec.ident);
                let ty = &spec.ty;
                reads.push(quote! { let #local: #ty = (#reader)(&mut __q); });
            }
            Source::Header | Source::Path | Source::Body => {}
        }
    }
    let extra = match &container.extra {
        Some(rule) => quote! { (#rule)(&__q) },
        None => quote! { ::std::vec::Vec::new() },
    };
    let uses_headers = specs.iter().any(|s| matches!(s.source, Source::Header));
    let uses_path = specs.iter().any(|s| matches!(s.source, Source::Path));
    let headers_arg = if uses_headers {
        quote!(__headers)
    } else {
        quote!(_headers)
    };
    let path_arg = if uses_path {
        quote!(__path)
    } else {
        quote!(_path)
    };

    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let build = |body_value: Option<&Ident>| {
        let inits = specs.iter().map(|spec| {
            let field = &spec.ident;
            match (&spec.source, body_value) {
                (Source::Body, Some(value)) => quote! { #field: #value },
                _ => {
                    let local = local(field);
                    quote! { #field: #local }
                }
            }
        });
        quote! { Self { #(#inits,)* } }
    };

    let value = format_ident!("__body_value");
    let body = if container.body {
        Some((quote!(Self), quote!(#value)))
    } else {
        body_fields.first().map(|field| {
            let ty = &field.ty;
            (quote!(#ty), build(Some(&value)))
        })
    };
    let tokens = if let Some((body_ty, make)) = body {
        quote! {
            impl #impl_generics #api::FromRequestParts for #ident #ty_generics #where_clause {
                fn from_parts(
                    __pairs: &[(::std::string::String, ::std::string::String)],
                    #headers_arg: &#api::RequestHeaders,
                    #path_arg: &[::std::string::String],
                    __body: &[u8],
                ) -> ::core::result::Result<Self, ::std::vec::Vec<#api::FieldError>> {
                    #[allow(unused_mut)]
                    let mut __q = #api::QueryReader::new(__pairs);
                    #(#reads)*
                    let __extra = #extra;
                    #api::conclude_body(
                        __q,
                        __extra,
                        #api::from_json_body::<#body_ty>(__body),
                        |#value| #make,
                    )
                }
            }
        }
    } else {
        let make = build(None);
        quote! {
            impl #impl_generics #api::FromQuery for #ident #ty_generics #where_clause {
                fn from_query(
                    __pairs: &[(::std::string::String, ::std::string::String)],
                    #headers_arg: &#api::RequestHeaders,
                    #path_arg: &[::std::string::String],
                ) -> ::core::result::Result<Self, ::std::vec::Vec<#api::FieldError>> {
                    #[allow(unused_mut)]
                    let mut __q = #api::QueryReader::new(__pairs);
                    #(#reads)*
                    let __extra = #extra;
                    #api::conclude(__q, __extra, #make)
                }
            }
        }
    };
    let describe = describe(input, &container, &specs, &api);
    Ok(quote! { #tokens #describe })
}

/// The `DescribeRequest` impl: the parameters in reading order, and the body's schema.
fn describe(
    input: &DeriveInput,
    container: &ContainerSpec,
    specs: &[FieldSpec],
    api: &TokenStream2,
) -> TokenStream2 {
    let doc = |location: TokenStream2,
               name: &str,
               required: bool,
               spec: &FieldSpec,
               schema: TokenStream2| {
        let description = &spec.doc;
        quote! {
            #api::ParamDoc {
                name: #name,
                location: #api::ParamIn::#location,
                required: #required,
                description: #description,
                schema: #schema,
            }
        }
    };
    let mut params = Vec::new();
    for spec in specs.iter().filter(|s| matches!(s.source, Source::Header)) {
        let name = spec.ident.to_string().replace('_', "-");
        params.push(doc(
            quote!(Header),
            &name,
            false,
            spec,
            quote!(#api::string_schema),
        ));
    }
    for spec in specs.iter().filter(|s| matches!(s.source, Source::Path)) {
        params.push(doc(
            quote!(Path),
            &spec.name,
            true,
            spec,
            quote!(#api::string_schema),
        ));
    }
    for spec in specs {
        match &spec.source {
            Source::Query => {
                let ty = &spec.ty;
                let required = matches!(spec.default, DefaultValue::None) && !is_option(ty);
                let schema = match &spec.with {
                    Some(_) => quote!(#api::string_schema),
                    None => quote!(<#ty as #api::QueryField>::schema),
                };
                params.push(doc(quote!(Query), &spec.name, required, spec, schema));
            }
            Source::Read(_) => {
                for name in &spec.params {
                    params.push(doc(
                        quote!(Query),
                        name,
                        false,
                        spec,
                        quote!(#api::number_schema),
                    ));
                }
            }
            Source::Header | Source::Path | Source::Body => {}
        }
    }
    let body = if container.body {
        quote!(::core::option::Option::Some(
            __generator.subschema_for::<Self>()
        ))
    } else if let Some(field) = specs.iter().find(|s| matches!(s.source, Source::Body)) {
        let ty = &field.ty;
        quote!(::core::option::Option::Some(__generator.subschema_for::<#ty>()))
    } else {
        quote!({
            let _ = __generator;
            ::core::option::Option::None
        })
    };
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        impl #impl_generics #api::DescribeRequest for #ident #ty_generics #where_clause {
            fn parameters() -> ::std::vec::Vec<#api::ParamDoc> {
                ::std::vec![#(#params),*]
            }

            #[cfg(feature = "schema")]
            fn body_schema(
                __generator: &mut ::schemars::SchemaGenerator,
            ) -> ::core::option::Option<::schemars::Schema> {
                #body
            }
        }
    }
}

/// Whether `ty` is written `Option<...>`.
fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// The doc comment of a field, its lines joined and trimmed.
fn doc_comment(attrs: &[syn::Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim().to_owned()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    lines.join(" ").trim().to_owned()
}

/// The local variable holding field `ident` (prefixed: a field may be called `q` or `path`).
fn local(ident: &Ident) -> Ident {
    format_ident!("__field_{}", ident)
}

/// `let __field_x = __q.field(..)` / `field_or(..)` for a query parameter.
fn query_read(spec: &FieldSpec, api: &TokenStream2) -> TokenStream2 {
    let local = local(&spec.ident);
    let ty = &spec.ty;
    let name = &spec.name;
    let parse = match &spec.with {
        Some(with) => quote!(#with),
        None => quote!(<#ty as #api::QueryField>::parse),
    };
    match &spec.default {
        DefaultValue::None => {
            let form = match (&spec.form, &spec.with) {
                (Some(form), _) => quote!(::core::option::Option::Some(#form)),
                (None, None) => {
                    quote!(::core::option::Option::Some(<#ty as #api::QueryField>::FORM))
                }
                (None, Some(_)) => quote!(::core::option::Option::None),
            };
            quote! { let #local: #ty = __q.field(#name, #form, #parse); }
        }
        DefaultValue::Trait => quote! {
            let #local: #ty = __q.field_or(#name, #parse, <#ty as ::core::default::Default>::default);
        },
        DefaultValue::Function(path) => quote! {
            let #local: #ty = __q.field_or(#name, #parse, #path);
        },
    }
}

/// `let __field_x = __q.header(..)` for an input header.
fn header_read(spec: &FieldSpec, api: &TokenStream2) -> TokenStream2 {
    let local = local(&spec.ident);
    let ident = &spec.ident;
    let ty = &spec.ty;
    let name = spec.ident.to_string().replace('_', "-");
    let parse = match &spec.with {
        Some(with) => quote!(#with),
        None => quote!(<#ty as #api::QueryField>::parse),
    };
    quote! {
        let #local: #ty = __q.header(__headers.#ident.as_deref(), #name, #parse);
    }
}

/// Reads the struct's `#[query(...)]` attributes.
fn container_spec(input: &DeriveInput) -> syn::Result<ContainerSpec> {
    let mut spec = ContainerSpec::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("query")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("body") {
                spec.body = true;
            } else if meta.path.is_ident("extra") {
                spec.extra = Some(meta.value()?.parse()?);
            } else {
                return Err(meta.error("unknown struct attribute: expected `body` or `extra = fn`"));
            }
            Ok(())
        })?;
    }
    Ok(spec)
}

/// Refuses container serde attributes that would change parameter names or defaults.
fn check_container_serde(input: &DeriveInput) -> syn::Result<()> {
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") || meta.path.is_ident("default") {
                return Err(meta.error(
                    "FromQuery reads field attributes only: rename or default the fields one by one",
                ));
            }
            skip_meta(&meta)
        })?;
    }
    Ok(())
}

/// Reads one field's serde and `#[query(...)]` attributes.
fn field_spec(field: &syn::Field) -> syn::Result<FieldSpec> {
    let Some(ident) = field.ident.clone() else {
        return Err(syn::Error::new(
            field.span(),
            "FromQuery needs named fields",
        ));
    };
    let mut name = ident.to_string();
    let mut default = DefaultValue::None;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                if meta.input.peek(syn::token::Paren) {
                    meta.parse_nested_meta(|inner| {
                        let value: LitStr = inner.value()?.parse()?;
                        if inner.path.is_ident("deserialize") {
                            name = value.value();
                        }
                        Ok(())
                    })?;
                } else {
                    let value: LitStr = meta.value()?.parse()?;
                    name = value.value();
                }
            } else if meta.path.is_ident("default") {
                default = if meta.input.peek(syn::Token![=]) {
                    let value: LitStr = meta.value()?.parse()?;
                    DefaultValue::Function(value.parse()?)
                } else {
                    DefaultValue::Trait
                };
            } else if meta.path.is_ident("flatten") || meta.path.is_ident("skip") {
                return Err(meta.error("FromQuery does not read `flatten` or `skip` fields"));
            } else {
                skip_meta(&meta)?;
            }
            Ok(())
        })?;
    }

    let mut source = Source::Query;
    let mut params = Vec::new();
    let mut with = None;
    let mut form = None;
    let mut sources = 0;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("query")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("with") {
                with = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("form") {
                form = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("read") {
                source = Source::Read(meta.value()?.parse()?);
                sources += 1;
            } else if meta.path.is_ident("params") {
                let value: LitStr = meta.value()?.parse()?;
                params = value
                    .value()
                    .split(',')
                    .map(|p| p.trim().to_owned())
                    .filter(|p| !p.is_empty())
                    .collect();
            } else if meta.path.is_ident("header") {
                source = Source::Header;
                sources += 1;
            } else if meta.path.is_ident("path") {
                source = Source::Path;
                sources += 1;
            } else if meta.path.is_ident("body") {
                source = Source::Body;
                sources += 1;
            } else {
                return Err(meta.error(
                    "unknown field attribute: expected `with = fn`, `form = \"...\"`, `read = fn`, `params = \"...\"`, `header`, `path` or `body`",
                ));
            }
            Ok(())
        })?;
    }
    if sources > 1 {
        return Err(syn::Error::new(
            ident.span(),
            "give at most one of `read`, `header`, `path` and `body`",
        ));
    }
    let allows_with = matches!(source, Source::Query | Source::Header);
    let allows_form = matches!(source, Source::Query);
    if with.is_some() && !allows_with {
        return Err(syn::Error::new(
            ident.span(),
            "`with` applies to query parameters and headers only",
        ));
    }
    if !params.is_empty() && !matches!(source, Source::Read(_)) {
        return Err(syn::Error::new(
            ident.span(),
            "`params` applies to `read` fields only",
        ));
    }
    if form.is_some() && !allows_form {
        return Err(syn::Error::new(
            ident.span(),
            "`form` applies to query parameters only",
        ));
    }
    Ok(FieldSpec {
        ident,
        ty: field.ty.clone(),
        name,
        source,
        with,
        form,
        default,
        doc: doc_comment(&field.attrs),
        params,
    })
}

/// Skips the value of a serde attribute that does not concern the query form.
fn skip_meta(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_meta(&inner))?;
    }
    Ok(())
}
