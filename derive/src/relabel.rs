//! `#[derive(Relabel)]`: the renaming of every request id a value holds.

use crate::attrs::{Role, type_options};
use crate::fields::{build, fields_of, no_unions};
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::{Data, DeriveInput, Ident};

pub(crate) fn expand_relabel(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let then = type_options(&input.attrs)?
        .relabel_then
        .map(|m| quote! { self.#m(); })
        .unwrap_or_default();
    let body = match &input.data {
        Data::Struct(s) => {
            let fields = fields_of(&s.fields, true)?;
            let each = fields
                .iter()
                .filter(|f| matches!(f.role, Role::Plain | Role::Nested | Role::Custom))
                .map(|f| {
                    let m = &f.member;
                    quote! { ::cancelcheck_model::pack::Relabel::relabel(&mut self.#m, __f); }
                });
            quote! { #(#each)* }
        }
        Data::Enum(e) => {
            let arms = e.variants.iter().map(|v| {
                let vname = &v.ident;
                let fields = fields_of(&v.fields, false).unwrap_or_default();
                let locals: Vec<&Ident> = fields.iter().map(|f| &f.local).collect();
                // (A variant's pattern reads as the expression that builds it.)
                let pattern = build(&quote! { Self::#vname }, &v.fields, &fields);
                quote! {
                    #pattern => {
                        #( ::cancelcheck_model::pack::Relabel::relabel(#locals, __f); )*
                    }
                }
            });
            quote! { match self { #(#arms)* } }
        }
        Data::Union(_) => return Err(no_unions("Relabel")),
    };
    let (imp, ty, wh) = input.generics.split_for_impl();
    Ok(quote! {
        impl #imp ::cancelcheck_model::pack::Relabel for #name #ty #wh {
            #[inline]
            #[allow(unused_variables)]
            fn relabel<__F: ::core::ops::Fn(::cancelcheck_model::RequestId) -> ::cancelcheck_model::RequestId>(
                &mut self,
                __f: &__F,
            ) {
                #body
                #then
            }
        }
    })
}
