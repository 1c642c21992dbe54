//! The papers' algorithms, each a reading of the shared statistics pass
//! ([`crate::extract::dom`]): CUTER, CETR and its variants over the tag ratios, DANA, BTE,
//! CoreEx and ECON. Each owns its parameters and its selection; rendering, the cascade that
//! chooses between them and the quality estimate live beside this folder.

pub mod bte;
pub mod cetr;
pub mod coreex;
pub mod cuter;
pub mod dana;
pub mod econ;
pub mod tag_ratio;
