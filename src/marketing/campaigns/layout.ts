/**
 * The default layout of a new mailing: the message in a centred column and a footer with the account's postal address
 * (required by law in many countries) and the unsubscribe and preference links, all as merge fields filled per email.
 */

/** The HTML a new mailing starts from. */
export const DEFAULT_LAYOUT = `<!doctype html>
<html>
<body style="margin:0;padding:0;background:#f4f5f7">
<div style="max-width:600px;margin:0 auto;padding:24px;background:#ffffff;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:#1d2330">
<p>Hello {{first_name}},</p>
<p>Write your message here.</p>
</div>
<div style="max-width:600px;margin:0 auto;padding:16px 24px;font-family:Arial,Helvetica,sans-serif;font-size:12px;line-height:1.5;color:#5a6270">
<p>{{postal_address}}</p>
<p><a href="{{unsubscribe_url}}">Unsubscribe</a> · <a href="{{preferences_url}}">Manage your subscriptions</a></p>
</div>
</body>
</html>
`;

/** Merge fields every campaign email has besides the subscriber's own. */
export const EMAIL_FIELDS = [
  'unsubscribe_url',
  'preferences_url',
  'view_in_browser_url',
  'postal_address',
] as const;
