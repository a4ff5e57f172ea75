//! Geolocation: the timezone of a coordinate ([`timezone`]) and (with issue 4) the position
//! of an IP address, answered from the packs' `timezones` and `ip` layers.
pub mod ip;
pub mod timezone;
