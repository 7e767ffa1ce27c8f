export { POST } from '../restore/route';
