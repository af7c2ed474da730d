/** Request and response schemas of the marketing settings routes. */
import { Type } from '@sinclair/typebox';

/** The account's marketing settings in their envelope. */
export const MarketingSettings = Type.Object({
  type: Type.Literal('marketing_settings'),
  attributes: Type.Object({
    suppress_transactional: Type.Boolean({
      description:
        'When true, transactional sends skip addresses whose subscriber unsubscribed from everything the account sends',
    }),
    postal_address: Type.Union([Type.String(), Type.Null()], {
      description: "The account's postal address, printed in the footer of campaign emails; null if none",
    }),
    brand_name: Type.Union([Type.String(), Type.Null()], {
      description:
        "The display name on the account's public pages and system emails; null shows the username",
    }),
    brand_color: Type.Union([Type.String(), Type.Null()], {
      description:
        'The brand colour as `#rrggbb`; null uses the default. Text on it is chosen to stay readable',
    }),
    brand_logo_image_id: Type.Union([Type.String(), Type.Null()], {
      description: "The logo: the id of an image of the account's library (`/images`); null if none",
    }),
    updated_at: Type.Union([Type.String(), Type.Null()], {
      description: 'When the settings last changed; null if never',
    }),
  }),
});

/** `PATCH /settings`: the settings to change; absent ones stay. */
export const SettingsBody = Type.Object(
  {
    settings: Type.Object(
      {
        suppress_transactional: Type.Optional(Type.Boolean()),
        postal_address: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
        brand_name: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
        brand_color: Type.Optional(Type.Union([Type.String({ maxLength: 16 }), Type.Null()])),
        brand_logo_image_id: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: true },
);
