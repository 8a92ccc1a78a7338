//! A derive's input as the expansions read it: its fields (how to reach each, a local name,
//! its type and role), the expression that builds a value from their locals, the errors for
//! shapes a derive refuses, and a field's name.

use crate::attrs::{Role, role};
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, Ident, Index, Member, Type};

/// One field: how to reach it, its type and its role.
pub(crate) struct Field {
    pub(crate) member: Member,
    /// A local name for it in generated code.
    pub(crate) local: Ident,
    pub(crate) ty: Type,
    pub(crate) role: Role,
}

pub(crate) fn fields_of(fields: &Fields, with_roles: bool) -> syn::Result<Vec<Field>> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let member = match &f.ident {
                Some(id) => Member::Named(id.clone()),
                None => Member::Unnamed(Index::from(i)),
            };
            let local = match &f.ident {
                Some(id) => format_ident!("f_{}", id),
                None => format_ident!("f_{}", i),
            };
            let role = if with_roles {
                role(&f.attrs)?
            } else {
                Role::Plain
            };
            Ok(Field {
                member,
                local,
                ty: f.ty.clone(),
                role,
            })
        })
        .collect()
}

/// The error for a derive asked of a union.
pub(crate) fn no_unions(derive: &str) -> syn::Error {
    syn::Error::new(
        Span::call_site(),
        format!("{derive}: unions are not supported"),
    )
}

/// The expression that builds `path` from the locals of `fields`.
pub(crate) fn build(path: &Tokens, shape: &Fields, fields: &[Field]) -> Tokens {
    let locals = fields.iter().map(|f| &f.local);
    match shape {
        Fields::Named(_) => {
            let members = fields.iter().map(|f| &f.member);
            quote! { #path { #(#members: #locals),* } }
        }
        Fields::Unnamed(_) => quote! { #path ( #(#locals),* ) },
        Fields::Unit => quote! { #path },
    }
}

pub(crate) fn named_struct<'a>(input: &'a DeriveInput, derive: &str) -> syn::Result<&'a Fields> {
    match &input.data {
        Data::Struct(s) if matches!(s.fields, Fields::Named(_)) => Ok(&s.fields),
        _ => Err(syn::Error::new(
            input.ident.span(),
            format!("{derive}: only structs with named fields"),
        )),
    }
}

pub(crate) fn member_name(m: &Member) -> String {
    match m {
        Member::Named(id) => id.to_string(),
        Member::Unnamed(i) => i.index.to_string(),
    }
}
