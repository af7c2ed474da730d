/** The hosted page's fixed texts in every shipped language (a form chooses one in its settings; English by default). */
import type { Language } from '../definitions/settings.ts';

/** The fixed texts of the hosted page. */
export interface PageTexts {
  submit: string;
  choose: string;
  correctOne: string;
  correctMany: (n: number) => string;
  honeypot: string;
  thanksTitle: string;
  received: (title: string) => string;
  next: string;
}

/** Texts by language. */
export const TEXTS: Record<Language, PageTexts> = {
  en: {
    submit: 'Submit',
    choose: 'Choose…',
    correctOne: 'Please correct the field:',
    correctMany: (n) => `Please correct these ${n} fields:`,
    honeypot: 'Leave this field empty',
    thanksTitle: 'Thank you',
    received: (title) => `Your response to “${title}” was received.`,
    next: 'Continue',
  },
  es: {
    submit: 'Enviar',
    choose: 'Elija…',
    correctOne: 'Corrija el campo:',
    correctMany: (n) => `Corrija estos ${n} campos:`,
    honeypot: 'Deje este campo vacío',
    thanksTitle: 'Gracias',
    received: (title) => `Hemos recibido su respuesta a «${title}».`,
    next: 'Continuar',
  },
};
