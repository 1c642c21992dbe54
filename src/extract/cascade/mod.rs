//! The production cascade and what it applies around the algorithms: [`auto`] (CUTER, then
//! the second opinions where CUTER is doubtful: ECON, the content scorer of [`readability`],
//! CETR), the reread of a page's `main` ([`landmark`]), the site [`template`] learned from a
//! site's own pages, and an operator's `[[sites]]` [`rules`].

pub mod auto;
pub mod landmark;
pub mod readability;
pub mod rules;
pub mod template;
