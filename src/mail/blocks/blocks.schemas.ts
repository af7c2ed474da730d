/**
 * The block document: an email written as a list of blocks (heading, rich-text paragraph, image, button, divider,
 * spacer, two columns, Markdown, social/footer), stored as JSON beside a mailing or a dynamic template and rendered
 * on the server through MJML (blocks.render.ts). Text may hold personalisation fields such as `{{first_name}}`.
 */
import { Type, type Static } from '@sinclair/typebox';

const Align = Type.Optional(
  Type.Union([Type.Literal('left'), Type.Literal('center'), Type.Literal('right')], {
    description: 'left when absent (center for a button)',
  }),
);
/** A link target: https, http, mailto, or a personalisation field such as `{{unsubscribe_url}}`. */
const Href = Type.String({ maxLength: 2000, pattern: '^(https?://|mailto:|\\{\\{)' });
const Colour = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'A colour as #rrggbb' });

export const HeadingBlock = Type.Object(
  {
    type: Type.Literal('heading'),
    text: Type.String({ maxLength: 500 }),
    level: Type.Optional(
      Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], { description: '1 when absent' }),
    ),
    align: Align,
  },
  { additionalProperties: false },
);

export const ParagraphBlock = Type.Object(
  {
    type: Type.Literal('paragraph'),
    html: Type.String({
      maxLength: 100_000,
      description: 'Rich text: p, br, strong, em, a href, ul, ol, li (anything else is removed)',
    }),
    align: Align,
  },
  { additionalProperties: false },
);

export const ImageBlock = Type.Object(
  {
    type: Type.Literal('image'),
    src: Type.String({ maxLength: 2000, pattern: '^https?://', description: 'The image URL' }),
    alt: Type.String({
      maxLength: 500,
      description: 'Describes the image for screen readers and blocked images',
    }),
    link: Type.Optional(Href),
    width: Type.Optional(Type.Integer({ minimum: 16, maximum: 600, description: 'Width in pixels' })),
  },
  { additionalProperties: false },
);

export const ButtonBlock = Type.Object(
  {
    type: Type.Literal('button'),
    text: Type.String({ minLength: 1, maxLength: 200 }),
    href: Href,
    color: Type.Optional(Colour),
    align: Align,
  },
  { additionalProperties: false },
);

export const DividerBlock = Type.Object({ type: Type.Literal('divider') }, { additionalProperties: false });

export const SpacerBlock = Type.Object(
  { type: Type.Literal('spacer'), height: Type.Integer({ minimum: 4, maximum: 200 }) },
  { additionalProperties: false },
);

export const MarkdownBlock = Type.Object(
  {
    type: Type.Literal('markdown'),
    markdown: Type.String({
      maxLength: 200_000,
      description: 'Markdown, rendered and sanitised like a paragraph',
    }),
  },
  { additionalProperties: false },
);

/** Blocks a column may hold (no columns inside columns, one footer per email). */
const InnerBlock = Type.Union([
  HeadingBlock,
  ParagraphBlock,
  ImageBlock,
  ButtonBlock,
  DividerBlock,
  SpacerBlock,
  MarkdownBlock,
]);

export const ColumnsBlock = Type.Object(
  {
    type: Type.Literal('columns'),
    columns: Type.Array(Type.Array(InnerBlock, { maxItems: 50 }), {
      minItems: 2,
      maxItems: 2,
      description: 'The left and the right column; on a phone the right one goes below',
    }),
  },
  { additionalProperties: false },
);

export const SocialLink = Type.Object(
  {
    network: Type.String({ minLength: 1, maxLength: 40, description: 'The name shown, e.g. Instagram' }),
    href: Href,
  },
  { additionalProperties: false },
);

export const FooterBlock = Type.Object(
  {
    type: Type.Literal('footer'),
    social: Type.Optional(Type.Array(SocialLink, { maxItems: 10 })),
    text: Type.Optional(Type.String({ maxLength: 2000, description: 'A line above the address' })),
  },
  {
    additionalProperties: false,
    description: 'Social links, the postal address, and the unsubscribe and preference links',
  },
);

export const Block = Type.Union([...InnerBlock.anyOf, ColumnsBlock, FooterBlock]);

/** The whole document. */
export const BlockDocument = Type.Object(
  {
    version: Type.Literal(1),
    settings: Type.Optional(
      Type.Object(
        {
          background: Type.Optional(Colour),
          brand_color: Type.Optional(Colour),
          preheader: Type.Optional(
            Type.String({ maxLength: 300, description: 'The preview line of inboxes' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    blocks: Type.Array(Block, { maxItems: 200 }),
  },
  {
    additionalProperties: false,
    description: 'An email as blocks; rendered on the server into html_part and text_part through MJML',
  },
);

export type BlockDocument = Static<typeof BlockDocument>;
export type Block = Static<typeof Block>;
export type InnerBlock = Static<typeof InnerBlock>;

/** An example document, shown in the OpenAPI description and used by tests. */
export const EXAMPLE_DOCUMENT: BlockDocument = {
  version: 1,
  settings: { brand_color: '#0b6e4f' },
  blocks: [
    { type: 'heading', text: 'Hello {{first_name}}', level: 1 },
    { type: 'paragraph', html: '<p>Our clinic opens <strong>earlier</strong> from Monday.</p>' },
    { type: 'image', src: 'https://example.org/clinic.png', alt: 'The clinic’s new entrance' },
    { type: 'button', text: 'Book a visit', href: 'https://example.org/book' },
    { type: 'divider' },
    { type: 'footer', social: [{ network: 'Instagram', href: 'https://instagram.com/example' }] },
  ],
};

/** A block document in a request: checked by the service, so that an error names the path inside it. */
export const BlockDocumentInput = Type.Union([
  Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'A block document (its schema is that of content_blocks in the answer). The server renders it through MJML into html_part and text_part (text_part only when not sent); do not send html_part with it. `null` drops the stored document and keeps the HTML.',
      examples: [EXAMPLE_DOCUMENT],
    },
  ),
  Type.Null(),
]);

/** A stored block document in an answer, or null for content written as HTML or text. */
export const BlockDocumentAnswer = Type.Union([BlockDocument, Type.Null()], {
  description: 'The block document the HTML was rendered from; null when written as HTML or text',
});
