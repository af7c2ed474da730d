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
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: true },
);
