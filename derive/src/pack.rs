//! `#[derive(Pack)]`: a value type's packed form (a struct's flags first, then its other
//! fields; an enum's tag, then its variant's fields).

use crate::fields::{Field, build, fields_of, no_unions};
use crate::flags::{flag_value, flag_width, pack_flags, unpack_flags};
use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::{Data, DeriveInput, Ident, Member, Type};

pub(crate) fn expand_pack(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let what = name.to_string();
    let (pack, unpack) = match &input.data {
        Data::Struct(s) => {
            let fields = fields_of(&s.fields, false)?;
            let (pack, unpack) = pack_struct_fields(&fields, &what, |m| quote! { self.#m });
            let build = build(&quote! { Self }, &s.fields, &fields);
            (pack, quote! { #unpack ::core::result::Result::Ok(#build) })
        }
        Data::Enum(e) => {
            if e.variants.len() > 256 {
                return Err(syn::Error::new(
                    Span::call_site(),
                    "Pack: over 256 variants",
                ));
            }
            let mut packs = Vec::new();
            let mut unpacks = Vec::new();
            for (tag, v) in e.variants.iter().enumerate() {
                let tag = tag as u8;
                let vname = &v.ident;
                let fields = fields_of(&v.fields, false)?;
                let locals: Vec<&Ident> = fields.iter().map(|f| &f.local).collect();
                // (A variant's pattern reads as the expression that builds it.)
                let pattern = build(&quote! { Self::#vname }, &v.fields, &fields);
                packs.push(quote! {
                    #pattern => {
                        __out.push(#tag);
                        #( ::cancelcheck_model::pack::Pack::pack(#locals, __out); )*
                    }
                });
                let tys = fields.iter().map(|f| &f.ty);
                let build = build(&quote! { Self::#vname }, &v.fields, &fields);
                unpacks.push(quote! {
                    #tag => {
                        #( let #locals = <#tys as ::cancelcheck_model::pack::Pack>::unpack(__r)?; )*
                        ::core::result::Result::Ok(#build)
                    }
                });
            }
            (
                quote! { match self { #(#packs)* } },
                quote! {
                    match __r.u8(#what)? {
                        #(#unpacks)*
                        __t => ::core::result::Result::Err(
                            ::cancelcheck_model::pack::PackError::BadTag(#what, __t),
                        ),
                    }
                },
            )
        }
        Data::Union(_) => return Err(no_unions("Pack")),
    };
    let (imp, ty, wh) = input.generics.split_for_impl();
    Ok(quote! {
        impl #imp ::cancelcheck_model::pack::Pack for #name #ty #wh {
            #[inline]
            fn pack(&self, __out: &mut ::std::vec::Vec<u8>) {
                #pack
            }
            #[inline]
            fn unpack(
                __r: &mut ::cancelcheck_model::pack::Reader<'_>,
            ) -> ::core::result::Result<Self, ::cancelcheck_model::pack::PackError> {
                #unpack
            }
        }
    })
}

/// A struct's fields, packed (flags first) and read into locals.
fn pack_struct_fields(
    fields: &[Field],
    what: &str,
    access: impl Fn(&Member) -> Tokens,
) -> (Tokens, Tokens) {
    let flags: Vec<(Tokens, u32)> = fields
        .iter()
        .filter(|f| flag_width(&f.ty) > 0)
        .map(|f| (access(&f.member), flag_width(&f.ty)))
        .collect();
    let bits: u32 = flags.iter().map(|f| f.1).sum();
    let pack_flags = pack_flags(&flags);
    let others: Vec<&Field> = fields.iter().filter(|f| flag_width(&f.ty) == 0).collect();
    // Consecutive `u8` fields are one run of bytes, written as one slice and read as one (the
    // same bytes as field by field, without a length check per byte).
    let runs: Vec<&[&Field]> = others
        .chunk_by(|a, b| is_byte(&a.ty) && is_byte(&b.ty))
        .collect();
    let pack_others = runs.iter().map(|run| match run {
        [f] => {
            let a = access(&f.member);
            quote! { ::cancelcheck_model::pack::Pack::pack(&#a, __out); }
        }
        _ => {
            let a = run.iter().map(|f| access(&f.member));
            quote! { __out.extend_from_slice(&[#(#a),*]); }
        }
    });
    let mut shift = 0;
    let read_flags = fields.iter().filter(|f| flag_width(&f.ty) > 0).map(|f| {
        let w = flag_width(&f.ty);
        let v = flag_value(w, shift, what);
        shift += w;
        let local = &f.local;
        quote! { let #local = #v; }
    });
    let read_others = runs.iter().map(|run| match run {
        [f] => {
            let (local, ty) = (&f.local, &f.ty);
            quote! { let #local = <#ty as ::cancelcheck_model::pack::Pack>::unpack(__r)?; }
        }
        _ => {
            let n = run.len();
            let locals = run.iter().map(|f| &f.local);
            // (`u8`'s own unpacking names a short read "byte".)
            quote! {
                let [#(#locals),*] = __r.array::<#n>("byte")?;
            }
        }
    });
    let unpack_flags = unpack_flags(bits, what);
    (
        quote! { #pack_flags #(#pack_others)* },
        quote! { #unpack_flags #(#read_flags)* #(#read_others)* },
    )
}

/// Whether a field's type is written `u8` (packed as itself: one byte).
fn is_byte(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("u8"))
}
