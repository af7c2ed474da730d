// The kinds of block the editor adds, their names, and the block each starts as.

/** Kinds of block, in the order the "Block to add" menu lists them. */
export const KINDS = [
  ['heading', 'Heading'],
  ['paragraph', 'Paragraph'],
  ['image', 'Image'],
  ['button', 'Button'],
  ['divider', 'Divider'],
  ['spacer', 'Spacer'],
  ['columns', 'Two columns'],
  ['markdown', 'Markdown'],
  ['footer', 'Footer'],
];
/** Kinds a column may hold (the schema allows no columns or footer inside a column). */
export const COLUMN_KINDS = KINDS.filter(([k]) => !['columns', 'footer'].includes(k));
/** A kind's name as the editor shows it. */
export const LABEL = Object.fromEntries(KINDS);

/** A new block of the kind. */
export function fresh(kind) {
  switch (kind) {
    case 'heading':
      return { type: 'heading', text: 'A heading', level: 2 };
    case 'paragraph':
      return { type: 'paragraph', html: '<p>Some text.</p>' };
    case 'image':
      return { type: 'image', src: 'https://', alt: '' };
    case 'button':
      return { type: 'button', text: 'Read more', href: 'https://' };
    case 'spacer':
      return { type: 'spacer', height: 24 };
    case 'columns':
      return {
        type: 'columns',
        columns: [
          [{ type: 'paragraph', html: '<p>Left</p>' }],
          [{ type: 'paragraph', html: '<p>Right</p>' }],
        ],
      };
    case 'markdown':
      return { type: 'markdown', markdown: 'Some **Markdown**.' };
    case 'footer':
      return { type: 'footer' };
    default:
      return { type: kind };
  }
}
