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
  /** Shown while the proof of work finishes after an early click on the submit button. */
  checking: string;
  /** The bot defence refused the post: too soon after the page was shown. */
  tooFast: string;
  /** The bot defence refused the post: the page's token was old, broken or its check wrong. */
  expired: string;
  /** The bot defence refused the post: the page was already used for other answers. */
  replayed: string;
  /** Under a Signature field. */
  signHint: string;
}

/** Texts by language. */
export const TEXTS: Record<Language, PageTexts> = {
  en: {
    submit: 'Submit',
    signHint: 'Type your full name to sign.',
    choose: 'Choose…',
    correctOne: 'Please correct the field:',
    correctMany: (n) => `Please correct these ${n} fields:`,
    honeypot: 'Leave this field empty',
    thanksTitle: 'Thank you',
    received: (title) => `Your response to “${title}” was received.`,
    next: 'Continue',
    checking: 'One moment: checking this browser before sending…',
    tooFast:
      'That was quicker than a person usually fills in this form. Please check your answers and send them again.',
    expired:
      'This page was open too long or could not be checked. Please check your answers and send them again.',
    replayed:
      'This page was already used to send other answers. Please check your answers and send them again.',
  },
  es: {
    submit: 'Enviar',
    signHint: 'Escriba su nombre completo para firmar.',
    choose: 'Elija…',
    correctOne: 'Corrija el campo:',
    correctMany: (n) => `Corrija estos ${n} campos:`,
    honeypot: 'Deje este campo vacío',
    thanksTitle: 'Gracias',
    received: (title) => `Hemos recibido su respuesta a «${title}».`,
    next: 'Continuar',
    checking: 'Un momento: comprobando este navegador antes de enviar…',
    tooFast:
      'Ha sido más rápido de lo que una persona suele rellenar este formulario. Revise sus respuestas y envíelas de nuevo.',
    expired:
      'Esta página estuvo abierta demasiado tiempo o no se pudo comprobar. Revise sus respuestas y envíelas de nuevo.',
    replayed:
      'Esta página ya se usó para enviar otras respuestas. Revise sus respuestas y envíelas de nuevo.',
  },
};
