//! `GET /localities/details`: any public id of autocomplete, geocode or nearby.
use super::format::{Shown, admin_label, resolve_language};
use super::index::LocalitiesIndex;
use crate::api::{
    AddressComponent, AddressListItem, AddressesPagination, CcFormat, DetailsField, DetailsRequest,
    DetailsResponse, LocalityDetails, LocalityGeometry, OneOrMany, PostalCodeAddresses, Shape,
    ShapeCoordinates, ShapeType,
};
use crate::error::ApiError;
use crate::packs::search::{kinds, postcode_key};

/// The not-found answer for an unknown public id.
pub fn unknown_id(public_id: &str) -> ApiError {
    ApiError::not_found(format!(
        "no place has public_id `{public_id}` in the installed packs; use a public_id returned \
         by autocomplete, geocode or nearby"
    ))
}

/// The outline of an item as the spec's GeoJSON (`Polygon` or `MultiPoligon`).
pub fn shape_of(idx: &LocalitiesIndex, pack: usize, row: i64) -> Option<Shape> {
    let text: String = idx
        .sqlite(pack)
        .query_row("SELECT shape FROM places WHERE id = ?1", [row], |r| {
            r.get(0)
        })
        .ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let coords = v.get("coordinates")?.clone();
    match v.get("type")?.as_str()? {
        "Polygon" => Some(Shape {
            kind: ShapeType::Polygon,
            coordinates: ShapeCoordinates::Polygon(serde_json::from_value(coords).ok()?),
        }),
        "MultiPolygon" => Some(Shape {
            kind: ShapeType::MultiPoligon,
            coordinates: ShapeCoordinates::MultiPolygon(serde_json::from_value(coords).ok()?),
        }),
        _ => None,
    }
}

/// The details of a shown item with the requested parts.
pub fn details_of(
    idx: &LocalitiesIndex,
    shown: &Shown,
    public_id: &str,
    fields: &[DetailsField],
    cc_format: CcFormat,
    extended_code: Option<&str>,
) -> LocalityDetails {
    let item = &shown.item;
    let shape = if fields.contains(&DetailsField::Shape) {
        item.data
            .shape_row
            .and_then(|row| shape_of(idx, item.pack, row))
    } else {
        None
    };
    let mut components = if fields.contains(&DetailsField::AddressComponents) {
        shown.address_components(cc_format)
    } else {
        Vec::new()
    };
    if let Some(code) = extended_code {
        components.retain(|c| !c.types.iter().any(|t| t == "postal_code"));
        components.push(AddressComponent {
            long_name: OneOrMany::One(code.to_string()),
            short_name: OneOrMany::One(code.to_string()),
            types: vec!["postal_code".into()],
        });
    }
    let is_postal = item.kind == kinds::POSTAL_CODE;
    let addresses = (is_postal && item.cc.as_deref() == Some("GB"))
        .then(|| uk_addresses(idx, shown))
        .flatten();
    let mut types = item.types.clone();
    if kinds::is_settlement(&item.kind) {
        types = vec!["locality".to_string(), item.kind.clone()];
    }
    LocalityDetails {
        public_id: public_id.to_string(),
        formatted_address: match extended_code {
            Some(code) => shown.extended_description(code),
            None => shown.formatted_address(),
        },
        types,
        geometry: LocalityGeometry {
            location: crate::api::LatLng {
                lat: item.lat,
                lng: item.lng,
            },
            viewport: fields
                .contains(&DetailsField::Geometry)
                .then(|| shown.viewport()),
            shape,
            accuracy: fields
                .contains(&DetailsField::Geometry)
                .then(|| shown.accuracy()),
        },
        address_components: components,
        name: is_postal.then(|| shown.name()),
        administrative_area_label: (item.kind == kinds::ADMIN)
            .then(|| admin_label(item.cc.as_deref(), item.data.admin_level.unwrap_or(0))),
        status: None,
        addresses,
    }
}

/// Every address of a United Kingdom postal code, each usable with details.
fn uk_addresses(idx: &LocalitiesIndex, shown: &Shown) -> Option<PostalCodeAddresses> {
    let code = shown.item.data.postcode.as_deref()?;
    let mut items: Vec<_> = idx
        .by_key(|f| f.postcode_key, &postcode_key("GB", code), 10_000)
        .into_iter()
        .filter(|it| it.kind == kinds::ADDRESS)
        .map(|it| {
            let parents = idx.parents(&it);
            let s = Shown {
                item: it,
                parents,
                lang: shown.lang.clone(),
            };
            let key = (
                s.item.data.street.clone().unwrap_or_default(),
                leading_number(s.item.data.housenumber.as_deref().unwrap_or("")),
                s.item.data.housenumber.clone().unwrap_or_default(),
            );
            (
                key,
                AddressListItem {
                    public_id: s.item.public_id.clone(),
                    description: s.formatted_address(),
                },
            )
        })
        .collect();
    items.sort_by(|a, b| a.0.cmp(&b.0));
    let list: Vec<AddressListItem> = items.into_iter().map(|(_, a)| a).collect();
    let n = list.len() as u32;
    Some(PostalCodeAddresses {
        list,
        pagination: AddressesPagination::single_page(n),
    })
}

/// Leading digits of a house number (`12b` → 12), `u64::MAX` when none.
pub fn leading_number(s: &str) -> u64 {
    let d: String = s.trim().chars().take_while(char::is_ascii_digit).collect();
    d.parse().unwrap_or(u64::MAX)
}

/// Runs details.
pub fn run(
    idx: &LocalitiesIndex,
    req: &DetailsRequest,
    locale_default: Option<&str>,
) -> Result<DetailsResponse, ApiError> {
    let (base, code) = match req.public_id.split_once('~') {
        Some((b, c)) => (b, Some(c)),
        None => (req.public_id.as_str(), None),
    };
    let item = idx.get(base).ok_or_else(|| unknown_id(&req.public_id))?;
    if let Some(code) = code
        && !item.data.postcodes.iter().any(|c| c == code)
    {
        return Err(unknown_id(&req.public_id));
    }
    let lang = resolve_language(
        req.language.as_deref(),
        req.accept_language.as_deref(),
        locale_default,
    );
    let item = (*item).clone();
    let parents = idx.parents(&item);
    let shown = Shown {
        item,
        parents,
        lang,
    };
    Ok(DetailsResponse {
        result: details_of(
            idx,
            &shown,
            &req.public_id,
            &req.fields,
            req.effective_cc_format(),
            code,
        ),
    })
}
